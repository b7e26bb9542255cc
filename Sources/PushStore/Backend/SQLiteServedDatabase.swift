import PushCore

/// serve on a SQLite file: one store, reading on a pool of connections and writing through
/// the one group-commit writer, and the WAL checkpointer beside them.
struct SQLiteServedDatabase: ServedDatabase {
    let writer: GroupCommitWriter
    let checkpointer: WALCheckpointer
    let sqliteStore: SQLiteStore

    var services: [any Service] { [checkpointer] }
    var queuedWrites: (any QueuedWrites)? { writer }
    var store: any BackendStore { sqliteStore }

    /// Only this process writes to the file's outbox: its own worker is told directly.
    func outboxWakes(onWake: @escaping @Sendable () -> Void) -> (any Service)? {
        nil
    }
}
