import PushCore

/// Sends each request to the handler of the first route whose path prefix matches, and asks
/// that handler which lane (if any) the request runs in.
public struct Router: LaneAssigning {
    public struct Route: Sendable {
        public let prefix: String
        public let handler: any RequestHandler

        /// Matches `prefix` itself and everything below it (`/token` matches `/token/x`, not `/tokens`).
        public init(prefix: String, handler: any RequestHandler) {
            self.prefix = prefix
            self.handler = handler
        }

        func matches(_ path: String) -> Bool {
            guard path.hasPrefix(prefix) else { return false }
            if path.utf8.count == prefix.utf8.count || prefix.hasSuffix("/") { return true }
            let next = path.utf8[path.utf8.index(path.utf8.startIndex, offsetBy: prefix.utf8.count)]
            return next == UInt8(ascii: "/") || next == UInt8(ascii: "&")
        }
    }

    private let routes: [Route]

    public init(routes: [Route]) {
        self.routes = routes
    }

    public func handle(_ request: Request) -> Response {
        guard let route = route(for: request.path) else { return .text(404, "no endpoint at \(request.path)") }
        return route.handler.handle(request)
    }

    public func bodyTooLarge(_ request: Request, bytes: Int, limit: Int) -> Response {
        guard let route = route(for: request.path) else { return .text(404, "no endpoint at \(request.path)") }
        return route.handler.bodyTooLarge(request, bytes: bytes, limit: limit)
    }

    public func lane(for request: Request) -> RequestLane? {
        (route(for: request.path)?.handler as? any LaneAssigning)?.lane(for: request)
    }

    public func busyResponse(for request: Request) -> Response {
        if let handler = route(for: request.path)?.handler as? any LaneAssigning {
            return handler.busyResponse(for: request)
        }
        // Only reached when a lane took a request no handler sent there.
        return .text(503, "busy, try again", headers: [("Retry-After", "1")])
    }

    /// The prefix of the route `path` goes to, nil when none: a bounded name for the
    /// request metrics (a raw path would carry tokens and usernames).
    public func routeName(for path: String) -> String? {
        route(for: path)?.prefix
    }

    private func route(for path: String) -> Route? {
        routes.first { $0.matches(path) }
    }
}

/// `/healthz`: proves the responder answers, without touching the store.
public struct HealthCheck: RequestHandler {
    public init() {}

    public func handle(_ request: Request) -> Response {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "use GET", headers: [("Allow", "GET, HEAD")])
        }
        return .text(200, "ok")
    }
}
