import Foundation
import PushCore

/// The `TokenStore` (and every other store protocol) on PostgreSQL: one instance per
/// process, shared by every thread, over a small pool of connections. Each write is its own
/// short SERIALIZABLE transaction on a borrowed connection, except the Token Reporter's
/// reports, which the threads write together (`reportBatcher`), as SQLite's group-commit
/// writer does for every write, and the outbox's claim and log trim (`lockingWrite`, READ
/// COMMITTED: they rely on the row locks they take). SQLite's WAL checkpointer has no
/// counterpart here.
final class PostgreSQLStore: Sendable {
    public let pool: PostgreSQLPool
    let clock: @Sendable () -> Int64
    let recentApps = RecentApps()
    let reportBatcher = WriteBatcher<AccountReport>(maximumBatch: PostgreSQLStore.maximumReportBatch)

    /// Connects lazily: the first call opens the first connection. It does not migrate:
    /// call `migrate()` once at start-up.
    /// - Parameter availabilityChanged: told, once per episode, when the database stops
    ///   answering (every call then throws `StoreUnavailable`) and when it answers again.
    public init(
        configuration: PostgreSQLConfiguration, clock: @escaping @Sendable () -> Int64 = SQLiteStore.unixTime,
        availabilityChanged: @escaping @Sendable (StoreAvailabilityChange) -> Void = { _ in }
    ) {
        pool = PostgreSQLPool(configuration: configuration, availabilityChanged: availabilityChanged)
        self.clock = clock
    }

    /// Applies the pending built-in migrations (`sql/postgresql/`, compiled in) under an
    /// advisory lock, so that nodes starting together apply each once; returns the file
    /// names this call applied.
    @discardableResult
    public func migrate() throws -> [String] {
        try withDatabase { try PostgreSQLMigrator.migrate(connection: $0, now: clock) }
    }

    /// Applies the pending migrations of `directory` instead of the built-in ones (tests).
    @discardableResult
    public func migrate(directory: URL) throws -> [String] {
        try withDatabase { try PostgreSQLMigrator.migrate(connection: $0, directory: directory, now: clock) }
    }

    func withDatabase<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try pool.withConnection(body)
    }

    func write<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try pool.withConnection { connection in try connection.writeTransaction { try body(connection) } }
    }

    func lockingWrite<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try pool.withConnection { connection in try connection.lockingWriteTransaction { try body(connection) } }
    }

    func read<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try pool.withConnection { connection in try connection.readTransaction { try body(connection) } }
    }
}

extension PostgreSQLStore: SQLStore, PushgateStore {}
