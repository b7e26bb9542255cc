import PushCore

/// `/healthz`: proves the responder answers, without touching the store.
public struct HealthCheck: RequestHandler {
    public init() {}

    public func handle(_ request: Request) -> Response {
        Self.ok
    }

    private static let ok = Response.text(200, "ok")
}
