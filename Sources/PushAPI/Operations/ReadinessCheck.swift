import PushCore

/// `/readyz`: whether this node should get traffic. Unlike `/healthz` (the process answers),
/// it asks the store: a load balancer takes a node whose database is gone or whose writer is
/// stuck out of rotation, instead of sending it requests that would fail.
public struct ReadinessCheck: RequestHandler {
    /// nil when ready, otherwise why not: for the log only, since the reason may hold the
    /// database's own error text (host names, user names, paths), which an anonymous caller
    /// must not read.
    private let notReadyReason: @Sendable () -> String?

    public init(notReadyReason: @escaping @Sendable () -> String?) {
        self.notReadyReason = notReadyReason
    }

    public func handle(_ request: Request) -> Response {
        if let reason = notReadyReason() {
            return Response.text(503, "not ready", headers: [("Retry-After", "5")]).noted("not ready: \(reason)")
        }
        return .text(200, "ready")
    }
}
