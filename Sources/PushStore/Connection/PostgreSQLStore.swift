import Foundation
import PushCore

/// The `TokenStore` (and every other store protocol) on PostgreSQL: one instance per
/// process, shared by every thread, over a small pool of connections. Each write is its own
/// short SERIALIZABLE transaction on a borrowed connection; SQLite's group-commit writer and
/// WAL checkpointer have no counterpart here, PostgreSQL does both itself.
public final class PostgreSQLStore: Sendable {
    public let pool: PostgreSQLPool
    let clock: @Sendable () -> Int64
    let recentAppPlatforms = RecentAppPlatforms(lifetimeSeconds: 1)

    /// Connects lazily: the first call opens the first connection. It does not migrate:
    /// call `migrate(directory:)` once at start-up.
    public init(
        configuration: PostgreSQLConfiguration, clock: @escaping @Sendable () -> Int64 = SQLiteStore.unixTime
    ) {
        pool = PostgreSQLPool(configuration: configuration)
        self.clock = clock
    }

    /// Applies the pending migrations of `directory` (the repository's `sql/postgresql/`)
    /// under an advisory lock, so that nodes starting together apply each once; returns the
    /// file names this call applied.
    @discardableResult
    public func migrate(directory: URL) throws -> [String] {
        try withDatabase { try PostgreSQLMigrator.migrate(connection: $0, directory: directory, now: clock) }
    }

    /// The migrations of `directory` not applied yet.
    public func pendingMigrations(directory: URL) throws -> [Migration] {
        try withDatabase { try PostgreSQLMigrator.pending(connection: $0, directory: directory) }
    }

    /// The migrations the database records as applied.
    public func appliedMigrations() throws -> [AppliedMigration] {
        try withDatabase { try PostgreSQLMigrator.applied(connection: $0) }
    }

    func withDatabase<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try pool.withConnection(body)
    }

    func write<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try pool.withConnection { connection in try connection.writeTransaction { try body(connection) } }
    }

    func read<T>(_ body: (PostgreSQLConnection) throws -> T) throws -> T {
        try pool.withConnection { connection in try connection.readTransaction { try body(connection) } }
    }
}

extension PostgreSQLStore: SQLStore, TokenStore, BeamsStore, DevicePruning, DeviceDeliveryRecord,
    BridgeSubscriptionStore, CospaceUserStore, AcrobitsPushDirectory, OutboxStore, ProviderTokenArchive,
    SenderKeyStore, OperationsStatusStore
{}
