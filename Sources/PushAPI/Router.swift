import Logging
import PushCore

/// Sends each request to the handler of the first route whose path prefix matches, and asks
/// that handler which lane (if any) the request runs in. A dialect's handler throws what it
/// refuses or fails at; the router turns that into the response, in the dialect's shape.
public struct Router: LaneAssigning {
    public struct Route: Sendable {
        public let prefix: String
        public let handler: any RequestHandler
        /// The handler as a dialect, found once here rather than on every request.
        let dialect: (any DialectHandler)?
        /// Path segments after which the rest of the path is one value (see `RequestPathCheck`).
        let opaqueTailAfter: Int?

        /// Matches `prefix` itself and everything below it (`/token` matches `/token/x`, not `/tokens`).
        public init(prefix: String, handler: any RequestHandler, opaqueTailAfter: Int? = nil) {
            self.prefix = prefix
            self.handler = handler
            self.opaqueTailAfter = opaqueTailAfter
            dialect = handler as? any DialectHandler
        }

        func matches(_ path: String) -> Bool {
            guard path.hasPrefix(prefix) else { return false }
            if path.utf8.count == prefix.utf8.count || prefix.hasSuffix("/") { return true }
            let next = path.utf8[path.utf8.index(path.utf8.startIndex, offsetBy: prefix.utf8.count)]
            return next == UInt8(ascii: "/") || next == UInt8(ascii: "&")
        }
    }

    private let routes: [Route]
    private let logger: Logger

    /// - Parameter logger: what each request's logger is made from, with its id added.
    public init(routes: [Route], logger: Logger = Router.silent) {
        self.routes = routes
        self.logger = logger
    }

    /// A logger that writes nowhere, for handlers driven without a server (tests).
    public static let silent = Logger(label: "pushgate", factory: { _ in SwiftLogNoOpLogHandler() })

    public func handle(_ request: Request) -> Response {
        if let refused = refusedPath(request) { return refused }
        guard let route = route(for: request.path) else { return .text(404, "no endpoint at \(request.path)") }
        guard let dialect = route.dialect else { return route.handler.handle(request) }
        return Self.answer(request, with: dialect, logger: logger(for: request))
    }

    /// The request's logger: every line it causes (a pruned device, an upstream's refusal, a
    /// retry) carries its id, which is nginx's `$request_id` behind the shipped template.
    public func logger(for request: Request) -> Logger {
        var logger = self.logger
        logger[metadataKey: "request-id"] = .string(request.id)
        return logger
    }

    /// The one place a dialect's thrown error becomes its response: a `DialectError` renders
    /// itself; anything else is a `ServiceFailure` (500, or 503 while the store is away) in
    /// the dialect's shape.
    static func answer(_ request: Request, with handler: some DialectHandler, logger: Logger) -> Response {
        do {
            return try handler.respond(to: request, logger: logger)
        } catch let error as any DialectError {
            return error.response
        } catch {
            return handler.failureResponse(ServiceFailure(error))
        }
    }

    public func bodyTooLarge(_ request: Request, bytes: Int, limit: Int) -> Response {
        guard let route = route(for: request.path) else { return .text(404, "no endpoint at \(request.path)") }
        return route.handler.bodyTooLarge(request, bytes: bytes, limit: limit)
    }

    public func lane(for request: Request) -> RequestLane? {
        guard let route = route(for: request.path) else { return nil }
        // A refused path is answered where it was read, whichever lane its route has.
        guard pathCheck.refusal(request.path, opaqueTailAfter: route.opaqueTailAfter) == nil else { return nil }
        return (route.handler as? any LaneAssigning)?.lane(for: request)
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

    private let pathCheck = RequestPathCheck()

    /// A 400 for a path nginx would normalise (see `RequestPathCheck`), in the shape of the
    /// dialect the caller meant: the route of the raw path, else of the path nginx made of it.
    private func refusedPath(_ request: Request) -> Response? {
        let raw = route(for: request.path)
        guard let refusal = pathCheck.refusal(request.path, opaqueTailAfter: raw?.opaqueTailAfter) else { return nil }
        let meant = raw ?? route(for: pathCheck.normalised(request.path))
        var response =
            meant?.dialect?.badRequest(refusal.description) ?? .text(400, refusal.description)
        response.logNote = "path refused: \(refusal.description)"
        return response
    }
}
