import PushStore

/// What `/readyz` checks on a responder thread, over that thread's store.
struct Readiness: Sendable {
    /// A write may wait for another process's write lock up to the busy timeout (5 s by
    /// default) and a batch then runs in milliseconds; a write older than this is stuck.
    static let writerStallSeconds = 30.0

    let store: any MigrationHistory
    /// The backend's queue of writes for batches; nil where every write is its own transaction.
    let queuedWrites: (any QueuedWrites)?

    /// nil when the node can serve, otherwise why not.
    func notReadyReason() -> String? {
        do {
            guard try !store.appliedMigrations().isEmpty else {
                return "the database has no migrations applied (run pushgate migrate)"
            }
        } catch {
            return "the database does not answer: \(error)"
        }
        if let age = queuedWrites?.oldestWriteAge(), age > Self.writerStallSeconds {
            return "a database write has waited \(Int(age)) s: the writer is stuck"
        }
        return nil
    }
}
