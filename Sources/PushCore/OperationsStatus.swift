/// The outbox as an operator watches it (`GET /metrics`, `GET /status`): how much waits,
/// how much is given up, and how late the most overdue push is.
public struct OutboxSummary: Sendable, Equatable {
    /// Pending rows never tried yet.
    public var queued: Int
    /// Pending rows tried at least once (waiting for their next attempt, or in flight).
    public var retrying: Int
    /// Dead letters: refused upstream or retries exhausted (`pushgate outbox dead`).
    public var dead: Int
    /// Pending rows whose time has come (a worker that keeps up leaves few).
    public var due: Int
    /// The `next_attempt_at` (unix ms) of the most overdue due row; nil when none is due.
    public var oldestDueAt: Int64?

    public init(queued: Int, retrying: Int, dead: Int, due: Int, oldestDueAt: Int64?) {
        self.queued = queued
        self.retrying = retrying
        self.dead = dead
        self.due = due
        self.oldestDueAt = oldestDueAt
    }
}

/// What the operator's pages read of the store: cheap aggregate queries, one each.
public protocol OperationsStatusStore: Sendable {
    /// The outbox by state, as of `now` (unix ms): one query.
    func outboxSummary(now: Int64) throws -> OutboxSummary
}
