import Foundation

/// Applies the numbered schema migrations of the top-level `sql/postgresql/` (same numbers and
/// meaning as SQLite's; built into the binary) in order, each in its own transaction, and records
/// each applied version in `schema_migrations`. The whole run holds a session advisory lock, so
/// that two nodes starting at once apply each migration once: the second waits, then finds
/// nothing to do.
public enum PostgreSQLMigrator {
    /// Not itself a migration: it must exist before the first one can be recorded.
    private static let createTableSQL = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version BIGINT PRIMARY KEY,
            name TEXT NOT NULL,
            applied_at BIGINT NOT NULL
        )
        """
    // One lock per schema: stores of several schemas in one database migrate independently.
    private static let lockSQL = "SELECT pg_advisory_lock(hashtext(current_schema() || '.pushgate_migrations'))"
    private static let unlockSQL = "SELECT pg_advisory_unlock(hashtext(current_schema() || '.pushgate_migrations'))"

    /// Applies every pending migration of `directory`, each in its own transaction, in order;
    /// returns the file names applied (empty when the schema was up to date, or another node
    /// applied them while this one waited for the lock). A failing migration is rolled back
    /// and stops the run; those before it stay applied.
    @discardableResult
    public static func migrate(
        connection: PostgreSQLConnection, directory: URL,
        now: () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) throws -> [String] {
        // Read before the lock: a directory that is wrong fails without waiting.
        try migrate(connection: connection, migrations: Migrator.migrations(in: directory), now: now)
    }

    /// Applies every pending one of `migrations` (by default the built-in ones), as
    /// `migrate(connection:directory:)` does.
    @discardableResult
    public static func migrate(
        connection: PostgreSQLConnection, migrations all: [Migration]? = nil,
        now: () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) throws -> [String] {
        let all = try all ?? Migration.builtIn(for: .postgresql)
        try connection.withStatement(lockSQL) { try $0.run() }
        defer { try? connection.withStatement(unlockSQL) { try $0.run() } }
        try connection.execute(createTableSQL)
        // Under the lock: what another node applied meanwhile is no longer pending.
        let pending = try Migrator.pending(database: connection, migrations: all)

        var appliedFiles: [String] = []
        for migration in pending {
            let script = migration.sql
            do {
                // Not SERIALIZABLE with retries: DDL under the advisory lock races nothing.
                try connection.run("BEGIN")
                connection.isInsideTransaction = true
                defer { connection.isInsideTransaction = false }
                do {
                    try connection.execute(script)
                    try connection.run(Migrator.recordSQL, binding: migration.version, migration.name, now())
                    try connection.run("COMMIT")
                } catch {
                    if connection.isInTransaction { try? connection.run("ROLLBACK") }
                    throw error
                }
                appliedFiles.append(migration.fileName)
            } catch let error as PostgreSQLError {
                throw PostgreSQLMigrationError(file: migration.fileName, underlying: error)
            }
        }
        return appliedFiles
    }
}

/// A PostgreSQL migration that failed and was rolled back.
public struct PostgreSQLMigrationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var underlying: PostgreSQLError

    public var description: String { "migration \(file) failed: \(underlying)" }
}
