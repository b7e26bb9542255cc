/// The migrations a store records as applied: both engines' stores answer it, and it is the
/// cheapest question that proves the database answers with pushgate's schema in it.
public protocol MigrationHistory: Sendable {
    func appliedMigrations() throws -> [AppliedMigration]
}

extension SQLiteStore: MigrationHistory {}
extension PostgreSQLStore: MigrationHistory {}
