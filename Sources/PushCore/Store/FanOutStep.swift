/// How much of a fan-out one step queues.
public enum FanOutStep {
    /// Subscriptions the publish's own step reads: few enough that a publish to a million
    /// devices answers at once, enough to keep the outbox busy for several batches. The
    /// worker's steps read what fills its batch (`OutboxStore.continueFanOuts`).
    public static let subscriptions = 10_000
}

/// What a publish to interests queued in its own transaction. A large fan-out is queued in
/// steps: the publish queues the first and leaves the rest to the outbox worker, which goes
/// on where the last committed step left off, after a restart too.
public struct QueuedFanOut: Sendable, Equatable {
    /// Outbox rows the publish queued itself.
    public var queued: Int
    /// True when subscriptions are left for the outbox worker to queue.
    public var continues: Bool

    public init(queued: Int, continues: Bool) {
        self.queued = queued
        self.continues = continues
    }
}

/// What one call of `OutboxStore.continueFanOuts` did.
public struct FanOutProgress: Sendable, Equatable {
    /// The outbox rows this step queued, already claimed by the caller: deliver and complete
    /// them as rows of `claimDue`.
    public var claimed: [OutboxDelivery]
    /// True while a fan-out this caller may take is still being queued: call again.
    public var remaining: Bool

    public init(claimed: [OutboxDelivery], remaining: Bool) {
        self.claimed = claimed
        self.remaining = remaining
    }

    public static let none = FanOutProgress(claimed: [], remaining: false)
}
