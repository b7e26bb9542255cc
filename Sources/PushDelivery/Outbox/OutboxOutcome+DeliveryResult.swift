import PushCore

extension OutboxOutcome {
    /// The one place an outbox push's `DeliveryResult` becomes what the store does with its row
    /// (STYLE 6): delivered → done; dead token → prune; rejected → dead letter with the
    /// reason (retrying cannot help); retry later → the policy's next time, or a dead letter
    /// once the attempts are spent.
    public init(_ result: DeliveryResult, attempts: Int, policy: RetryPolicy, now: Int64) {
        switch result {
        case .delivered(let id):
            self = .delivered(id: id)
        case .deadToken(let reason, let since):
            self = .deadToken(reason: reason, since: since)
        case .rejected(let status, let reason):
            self = .dead(error: "rejected (\(status)): \(reason)")
        case .retryLater(let reason, let afterSeconds):
            let error = afterSeconds.map { "\(reason) (Retry-After \($0) s)" } ?? reason
            switch policy.decide(attempts: attempts, retryAfterSeconds: afterSeconds, now: now) {
            case .retry(let at): self = .retry(at: at, error: error)
            case .giveUp: self = .dead(error: "gave up after \(attempts) attempts: \(error)")
            }
        }
    }
}
