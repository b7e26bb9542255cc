import PushCore

/// `/readyz`: whether this node should get traffic. Unlike `/healthz` (the process answers),
/// it asks the store: a load balancer takes a node whose database is gone or whose writer is
/// stuck out of rotation, instead of sending it requests that would fail.
public struct ReadinessCheck: RequestHandler {
    /// nil when ready, otherwise why not (sent to the operator as the 503's body).
    private let notReadyReason: @Sendable () -> String?

    public init(notReadyReason: @escaping @Sendable () -> String?) {
        self.notReadyReason = notReadyReason
    }

    public func handle(_ request: Request) -> Response {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "use GET", headers: [("Allow", "GET, HEAD")])
        }
        if let reason = notReadyReason() {
            return .text(503, "not ready: \(reason)", headers: [("Retry-After", "5")])
        }
        return .text(200, "ready")
    }
}
