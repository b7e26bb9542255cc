import PushCore
import Logging

/// One kind of trouble (an upstream failing, credentials refused, pushes given up), logged
/// once per episode rather than once per push: a warning when the first failure of a subject
/// (a provider, an app) starts an episode, saying what it is about and why, and a warning when
/// the first success after it ends it, with how many failures came in between. Failures within
/// an episode are only counted. An outage of APNs then leaves two lines, not one per push.
final class TroubleEpisode: Sendable {
    /// What the trouble is, as the log line begins: "APNs is unreachable or failing".
    private let trouble: String
    private let logger: Logger
    /// Failures per subject with an episode open.
    private let open = Locked<[String: Int]>([:])

    init(_ trouble: String, logger: Logger) {
        self.trouble = trouble
        self.logger = logger
    }

    /// `count` failures of `subject`; the first of an episode is logged with `reason` and
    /// `metadata` (the app, the provider).
    func failed(_ subject: String, reason: String, count: Int = 1, metadata: Logger.Metadata = [:]) {
        guard count > 0 else { return }
        let starts = open.withLock { open -> Bool in
            let before = open[subject]
            open[subject] = (before ?? 0) + count
            return before == nil
        }
        guard starts else { return }
        var metadata = metadata
        metadata["reason"] = "\(reason)"
        logger.warning("\(trouble): \(subject): \(reason) (logged once until it recovers)", metadata: metadata)
    }

    /// `subject` works again: ends its episode, if one is open.
    func succeeded(_ subject: String, metadata: Logger.Metadata = [:]) {
        // Most calls find nothing open: read without allocating anything.
        let failures = open.withLock { open -> Int? in open.removeValue(forKey: subject) }
        guard let failures else { return }
        logger.warning("\(trouble): \(subject) recovered after \(failures) failure(s)", metadata: metadata)
    }
}
