import Foundation
import SchemaMigrations

/// One schema migration, `NNNN_name.sql`: its number, its name and its SQL.
public struct Migration: Sendable, Equatable {
    public var version: Int
    /// The part after the number: `initial` in `0001_initial.sql`.
    public var name: String
    public var fileName: String
    /// The file's SQL.
    public var sql: String

    /// Parses a file name; nil when it is not `digits_name.sql`.
    init?(fileName: String, sql: String) {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let number = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }), let version = Int(number), version > 0,
            !name.isEmpty
        else { return nil }
        self.version = version
        self.name = String(name)
        self.fileName = fileName
        self.sql = sql
    }

    /// The migrations built into this binary for `engine` (the top-level `sql/sqlite/` or
    /// `sql/postgresql/`), ordered and checked like a directory's.
    public static func builtIn(for engine: SQLEngine) throws -> [Migration] {
        let files: [(fileName: String, bytes: [UInt8])]
        switch engine {
        case .sqlite: files = BuiltInMigrationFiles.sqlite
        case .postgresql: files = BuiltInMigrationFiles.postgresql
        }
        var migrations: [Migration] = []
        for file in files {
            // As strict as reading the file from a directory, which refuses what is not UTF-8.
            guard let sql = String(bytes: file.bytes, encoding: .utf8) else {
                throw MigrationError.unreadableFile(file.fileName, reason: "it is not UTF-8")
            }
            guard let migration = Migration(fileName: file.fileName, sql: sql) else {
                throw MigrationError.badFileName(file.fileName)
            }
            migrations.append(migration)
        }
        return try Migrator.ordered(migrations, source: "the built-in \(engine.rawValue) migrations")
    }
}

/// A migration the database records as applied.
public struct AppliedMigration: Sendable, Equatable {
    public var version: Int
    public var name: String
    /// Unix seconds.
    public var appliedAt: Int64
}

/// Why migrations were not applied.
public enum MigrationError: Error, Equatable, CustomStringConvertible {
    case unreadableDirectory(path: String, reason: String)
    case noMigrations(path: String)
    /// A `.sql` file whose name is not `NNNN_name.sql`: probably a typo that would be skipped.
    case badFileName(String)
    case duplicateVersion(Int, files: [String])
    /// Versions must run 1, 2, 3, … without holes: a hole is a migration lost in a merge.
    case gap(expected: Int, found: String)
    /// The database was migrated by a newer pushgate than this one.
    case unknownAppliedVersion(Int, name: String)
    case unreadableFile(String, reason: String)
    case failed(file: String, DatabaseError)

    public var description: String {
        switch self {
        case .unreadableDirectory(let path, let reason):
            return "cannot read the migrations directory \(path): \(reason)"
        case .noMigrations(let path):
            return "no NNNN_name.sql migrations in \(path)"
        case .badFileName(let file):
            return "migration file \(file) is not named NNNN_name.sql"
        case .duplicateVersion(let version, let files):
            return "migration version \(version) appears more than once: \(files.joined(separator: ", "))"
        case .gap(let expected, let found):
            return "migration version \(expected) is missing (found \(found) next)"
        case .unknownAppliedVersion(let version, let name):
            return "the database has migration \(version) (\(name)) applied, which this pushgate does not know: "
                + "it was migrated by a newer version"
        case .unreadableFile(let file, let reason):
            return "cannot read migration \(file): \(reason)"
        case .failed(let file, let error):
            return "migration \(file) failed and was rolled back: \(error)"
        }
    }
}
