import PushCore

/// serve on a SQLite file: every thread's store writes through the one group-commit writer,
/// and the WAL checkpointer runs beside them.
struct SQLiteServedDatabase: ServedDatabase {
    let writer: GroupCommitWriter
    let checkpointer: WALCheckpointer
    let open: @Sendable () throws -> SQLiteStore

    var services: [any Service] { [checkpointer] }
    var queuedWrites: (any QueuedWrites)? { writer }

    func openStore() throws -> any BackendStore {
        try open()
    }

    /// Only this process writes to the file's outbox: its own worker is told directly.
    func outboxWakes(onWake: @escaping @Sendable () -> Void) -> (any Service)? {
        nil
    }
}
