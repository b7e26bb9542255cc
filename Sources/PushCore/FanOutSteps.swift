/// How much of a fan-out one step queues.
public enum FanOutStep {
    /// Subscriptions a step reads: few enough that a publish to a million devices answers at
    /// once and each of the worker's steps is a short transaction, enough that a step keeps
    /// the engine busy for several batches.
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
    /// Outbox rows queued by this step.
    public var queued: Int
    /// True while a fan-out this caller may take is still being queued: call again.
    public var remaining: Bool

    public init(queued: Int, remaining: Bool) {
        self.queued = queued
        self.remaining = remaining
    }

    public static let none = FanOutProgress(queued: 0, remaining: false)
}
