import Foundation

/// Applies the numbered schema migrations (`0001_initial.sql`, …: the top-level `sql/sqlite/`,
/// built into the binary, or a directory's for tests) in order, each in its own transaction, and
/// records each applied version in `schema_migrations`, so that every start-up and
/// `pushgate migrate` can run it safely.
public enum Migrator {
    /// Not itself a migration: it must exist before the first one can be recorded.
    private static let createTableSQL = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            applied_at INTEGER NOT NULL
        ) STRICT
        """
    private static let tableExistsSQL = EngineSQL(
        sqlite: "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'",
        postgresql: "SELECT 1 WHERE to_regclass('schema_migrations') IS NOT NULL")
    private static let appliedSQL = "SELECT version, name, applied_at FROM schema_migrations ORDER BY version"
    private static let isAppliedSQL = "SELECT 1 FROM schema_migrations WHERE version = ?"
    static let recordSQL = "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)"

    /// The migrations in `directory` (files `NNNN_name.sql`, read now), ordered by version:
    /// what tests migrate with (the built-in ones' own folder, or a copy of some of them).
    /// Throws when a `.sql` file is misnamed or unreadable, or `ordered` refuses the set.
    public static func migrations(in directory: URL) throws -> [Migration] {
        let names: [String]
        do {
            // By path: on Linux the URL variant lists nothing when `directory` is a symlink.
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw MigrationError.unreadableDirectory(path: directory.path, reason: "\(error)")
        }
        var migrations: [Migration] = []
        for name in names where name.hasSuffix(".sql") {
            let url = directory.appendingPathComponent(name, isDirectory: false)
            let sql: String
            do {
                sql = try String(contentsOf: url, encoding: .utf8)
            } catch {
                throw MigrationError.unreadableFile(name, reason: "\(error)")
            }
            guard let migration = Migration(fileName: name, sql: sql) else {
                throw MigrationError.badFileName(name)
            }
            migrations.append(migration)
        }
        return try ordered(migrations, source: directory.path)
    }

    /// `migrations` ordered by version. Throws when there are none, a version appears twice,
    /// or versions do not run 1, 2, 3, … without a hole. `source` names them in the error.
    static func ordered(_ migrations: [Migration], source: String) throws -> [Migration] {
        guard !migrations.isEmpty else { throw MigrationError.noMigrations(path: source) }
        let migrations = migrations.sorted { ($0.version, $0.fileName) < ($1.version, $1.fileName) }
        var expected = 1
        for (index, migration) in migrations.enumerated() {
            if index > 0, migrations[index - 1].version == migration.version {
                let files = migrations.filter { $0.version == migration.version }.map(\.fileName)
                throw MigrationError.duplicateVersion(migration.version, files: files)
            }
            guard migration.version == expected else {
                throw MigrationError.gap(expected: expected, found: migration.fileName)
            }
            expected += 1
        }
        return migrations
    }

    /// What `database` (of either engine) records as applied, by version; empty for a new database.
    static func applied<Connection: SQLConnection>(database: Connection) throws -> [AppliedMigration] {
        let hasTable = try database.withStatement(tableExistsSQL) { try $0.step() }
        guard hasTable else { return [] }
        return try database.rows(appliedSQL) { row in
            AppliedMigration(version: Int(row.int64(0)), name: row.string(1) ?? "", appliedAt: row.int64(2))
        }
    }

    /// The migrations of `directory` that `database` has not applied yet, in order.
    static func pending(database: some SQLConnection, directory: URL) throws -> [Migration] {
        try pending(database: database, migrations: migrations(in: directory))
    }

    /// The `migrations` (by default the built-in ones of its engine) that `database` has not
    /// applied yet, in order.
    static func pending<Connection: SQLConnection>(database: Connection, migrations all: [Migration]? = nil) throws
        -> [Migration]
    {
        let all = try all ?? Migration.builtIn(for: Connection.engine)
        let applied = try applied(database: database)
        try checkKnown(applied, all)
        let appliedVersions = Set(applied.map(\.version))
        return all.filter { !appliedVersions.contains($0.version) }
    }

    /// Applies every pending migration of `directory`, each in its own transaction, in order;
    /// returns the file names applied (empty when the schema was up to date). A failing
    /// migration is rolled back and stops the run; those before it stay applied.
    @discardableResult
    public static func migrate(
        database: Database, directory: URL, now: () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) throws -> [String] {
        try migrate(database: database, migrations: migrations(in: directory), now: now)
    }

    /// Applies every pending one of `migrations` (by default the built-in ones), as
    /// `migrate(database:directory:)` does.
    @discardableResult
    public static func migrate(
        database: Database, migrations all: [Migration]? = nil,
        now: () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) throws -> [String] {
        let pending = try pending(database: database, migrations: all)
        guard !pending.isEmpty else { return [] }
        try database.execute(createTableSQL)

        // Foreign keys are off while migrations run and checked before each one commits: a
        // migration that rebuilds a table (SQLite cannot change a CHECK in place) drops the old
        // one, and with foreign keys on that drop would cascade into every row referencing it.
        // The pragma is a no-op inside a transaction, so it is set around them.
        try database.execute("PRAGMA foreign_keys = OFF")
        defer { try? database.execute("PRAGMA foreign_keys = ON") }

        var appliedFiles: [String] = []
        for migration in pending {
            let script = migration.sql
            do {
                let didApply = try database.writeTransaction { () throws -> Bool in
                    // Checked again under the write lock: another process may have migrated
                    // since `pending` looked.
                    let isApplied = try database.withStatement(isAppliedSQL) {
                        try $0.bind(migration.version, at: 1)
                        return try $0.step()
                    }
                    if isApplied { return false }
                    try database.execute(script)
                    try checkForeignKeys(database, after: migration)
                    try database.run(recordSQL, binding: migration.version, migration.name, now())
                    return true
                }
                if didApply { appliedFiles.append(migration.fileName) }
            } catch let error as DatabaseError {
                throw MigrationError.failed(file: migration.fileName, error)
            }
        }
        return appliedFiles
    }

    /// Fails the migration (so it rolls back) when it left a row whose reference points
    /// nowhere, which foreign keys would have refused had they been on.
    private static func checkForeignKeys(_ database: Database, after migration: Migration) throws {
        let orphan = try database.withStatement("PRAGMA foreign_key_check") { statement -> String? in
            guard try statement.step() else { return nil }
            return statement.string(0)
        }
        if let table = orphan {
            throw DatabaseError(
                extendedResultCode: 787, message: "\(migration.fileName) left rows in \(table) that reference nothing")
        }
    }

    static func checkKnown(_ applied: [AppliedMigration], _ known: [Migration]) throws {
        let knownVersions = Set(known.map(\.version))
        if let unknown = applied.first(where: { !knownVersions.contains($0.version) }) {
            throw MigrationError.unknownAppliedVersion(unknown.version, name: unknown.name)
        }
    }
}
