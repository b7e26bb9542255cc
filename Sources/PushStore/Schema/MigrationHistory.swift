import Foundation

/// The migrations a store records as applied: both engines' stores answer it, and it is the
/// cheapest question that proves the database answers with pushgate's schema in it.
public protocol MigrationHistory: Sendable {
    func appliedMigrations() throws -> [AppliedMigration]
}

extension SQLiteStore: MigrationHistory {}
extension PostgreSQLStore: MigrationHistory {}

extension SQLStore {
    public func appliedMigrations() throws -> [AppliedMigration] {
        try withDatabase { try Migrator.applied(database: $0) }
    }

    /// The built-in migrations (or `migrations`) not applied yet, for checks.
    public func pendingMigrations(_ migrations: [Migration]? = nil) throws -> [Migration] {
        try withDatabase { try Migrator.pending(database: $0, migrations: migrations) }
    }

    /// The migrations of `directory` not applied yet (tests).
    public func pendingMigrations(directory: URL) throws -> [Migration] {
        try withDatabase { try Migrator.pending(database: $0, directory: directory) }
    }
}
