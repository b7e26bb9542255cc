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
    private static let tableExistsSQL = "SELECT to_regclass('schema_migrations') IS NOT NULL"
    private static let appliedSQL = "SELECT version, name, applied_at FROM schema_migrations ORDER BY version"
    private static let recordSQL = "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"

    /// What the database records as applied, by version; empty for a new database.
    public static func applied(connection: PostgreSQLConnection) throws -> [AppliedMigration] {
        let hasTable = try connection.withStatement(tableExistsSQL) { row in try row.step() && row.int64(0) != 0 }
        guard hasTable else { return [] }
        return try connection.withStatement(appliedSQL) { row in
            var applied: [AppliedMigration] = []
            while try row.step() {
                applied.append(
                    AppliedMigration(version: Int(row.int64(0)), name: row.string(1) ?? "", appliedAt: row.int64(2)))
            }
            return applied
        }
    }

    /// The migrations of `directory` that the database has not applied yet, in order.
    public static func pending(connection: PostgreSQLConnection, directory: URL) throws -> [Migration] {
        try pending(connection: connection, migrations: Migrator.migrations(in: directory))
    }

    /// The `migrations` (by default the built-in ones) that the database has not applied yet, in order.
    public static func pending(connection: PostgreSQLConnection, migrations all: [Migration]? = nil) throws -> [Migration] {
        let all = try all ?? Migration.builtIn(for: .postgresql)
        let applied = try applied(connection: connection)
        try Migrator.checkKnown(applied, all)
        let appliedVersions = Set(applied.map(\.version))
        return all.filter { !appliedVersions.contains($0.version) }
    }

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
        let pending = try pending(connection: connection, migrations: all)

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
                    try connection.withStatement(recordSQL) {
                        try $0.bind(migration.version, at: 1)
                        try $0.bind(migration.name, at: 2)
                        try $0.bind(now(), at: 3)
                        try $0.run()
                    }
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
