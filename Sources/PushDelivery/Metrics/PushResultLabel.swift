import PushCore

/// The `result` label of `pushgate_pushes_total`: a push's final result, in words an alert
/// rule can name.
public enum PushResultLabel: String, Sendable, CaseIterable {
    case delivered
    case deadToken = "dead_token"
    /// Refused upstream (payload, topic, credentials): not retried.
    case rejected
    /// Not delivered for now: pnm2 answered 500, the outbox will try again.
    case retry
    /// The outbox's attempts are spent: a dead letter.
    case givenUp = "given_up"

    /// A push sent while its caller waits (pnm2): the deliverer's result is final.
    public init(_ result: DeliveryResult) {
        switch result {
        case .delivered: self = .delivered
        case .deadToken: self = .deadToken
        case .rejected: self = .rejected
        case .retryLater: self = .retry
        }
    }

    /// An outbox row's outcome. A dead letter is either a refusal (`OutboxOutcome(_:attempts:…)`
    /// words it "rejected (status): …") or attempts given up.
    public init(_ outcome: OutboxOutcome) {
        switch outcome {
        case .delivered: self = .delivered
        case .deadToken: self = .deadToken
        case .retry: self = .retry
        case .dead(let error): self = error.hasPrefix("rejected") ? .rejected : .givenUp
        }
    }
}
