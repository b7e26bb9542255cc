import PushCore

/// The database as serve uses it: one store for every thread and service of the process, the
/// services that keep the engine healthy meanwhile, and what readiness asks about its writes.
public protocol ServedDatabase: Sendable {
    /// Services the stores rely on, in the order to start them, before the first store is
    /// used; empty when the engine needs none.
    var services: [any Service] { get }
    /// Writes waiting to be committed together, whose stalls `/readyz` reports; nil when
    /// every write is its own transaction.
    var queuedWrites: (any QueuedWrites)? { get }

    /// The process's one store: it owns the writer and what readers need (a pool of
    /// connections to the file, or to the server), so every thread may call it at once.
    var store: any BackendStore { get }

    /// A service that calls `onWake` when another node publishes to the shared outbox (and
    /// once after each reconnection); nil when no other node can publish to it.
    func outboxWakes(onWake: @escaping @Sendable () -> Void) -> (any Service)?
}

/// Writes queued for a batch: the age of the oldest tells a stuck writer from a busy one.
public protocol QueuedWrites: Sendable {
    /// Seconds the oldest queued write has waited; nil when none waits.
    func oldestWriteAge() -> Double?
}

extension GroupCommitWriter: QueuedWrites {}
