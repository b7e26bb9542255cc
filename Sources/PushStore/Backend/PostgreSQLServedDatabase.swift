import PushCore

/// serve on a PostgreSQL server: the process's one store for every thread, and a listener
/// through which a publish on any node wakes this node's outbox worker.
struct PostgreSQLServedDatabase: ServedDatabase {
    let postgreSQLStore: PostgreSQLStore
    let warn: @Sendable (String) -> Void

    var services: [any Service] { [] }
    var queuedWrites: (any QueuedWrites)? { nil }
    var store: any BackendStore { postgreSQLStore }

    /// Polling every second is the worker's fallback while the listening connection is down.
    func outboxWakes(onWake: @escaping @Sendable () -> Void) -> (any Service)? {
        OutboxWakeListener(
            configuration: postgreSQLStore.pool.configuration, onWake: onWake,
            onError: { [warn] error in
                warn("outbox: not listening for other nodes' publishes, polling every second: \(error)")
            })
    }
}
