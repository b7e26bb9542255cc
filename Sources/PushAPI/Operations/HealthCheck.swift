import PushCore

/// `/healthz`: proves the responder answers, without touching the store.
public struct HealthCheck: RequestHandler {
    public init() {}

    public func handle(_ request: Request) -> Response {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "use GET", headers: [("Allow", "GET, HEAD")])
        }
        return Self.ok
    }

    private static let ok = Response.text(200, "ok")
}
