import Foundation
import XCTest

@testable import PushStore

final class MigratorTests: StoreTestCase {

    // SQLite only: it tests SQLite's migrator and migrations (PostgreSQLMigratorTests cover PostgreSQL's).
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireSQLite()
    }
    func testRealMigrationsApplyOnceAndAreIdempotent() throws {
        let database = try openSQLiteDatabase()
        let first = try Migrator.migrate(database: database, directory: Self.sqlDirectory)
        XCTAssertEqual(first.first, "0001_initial.sql")
        XCTAssertEqual(try Migrator.applied(database: database).map(\.version), Array(1...first.count))
        XCTAssertEqual(try Migrator.pending(database: database, directory: Self.sqlDirectory), [])

        let second = try Migrator.migrate(database: database, directory: Self.sqlDirectory)
        XCTAssertEqual(second, [])
        XCTAssertEqual(try Migrator.applied(database: database).count, first.count)
    }

    func testSchemaHasEveryDialectsTablesAndTheOutbox() throws {
        let database = try openSQLiteDatabase()
        try Migrator.migrate(database: database, directory: Self.sqlDirectory)
        let tables = try database.withStatement("SELECT name FROM sqlite_schema WHERE type = 'table'") { row in
            var names: Set<String> = []
            while try row.step() { names.insert(row.string(0) ?? "") }
            return names
        }
        for table in [
            "apps", "devices", "acrobits_accounts", "users", "user_devices", "beams_clients", "beams_interests",
            "bridge_subscriptions", "api_keys", "schema_migrations",
        ] {
            XCTAssertTrue(tables.contains(table), "missing table \(table)")
        }
        XCTAssertTrue(tables.contains("outbox"))
    }

    func testPendingListsMigrationsOfANewDatabase() throws {
        let database = try openSQLiteDatabase()
        XCTAssertEqual(try Migrator.applied(database: database), [])
        let pending = try Migrator.pending(database: database, directory: Self.sqlDirectory)
        XCTAssertEqual(pending.first?.version, 1)
        XCTAssertEqual(pending.first?.name, "initial")
    }

    func testAppliesInOrderEachInItsOwnTransaction() throws {
        let migrations = try makeMigrations([
            "0002_second.sql": "CREATE TABLE two (x INTEGER);",
            "0001_first.sql": "CREATE TABLE one (x INTEGER);",
            "0003_broken.sql": "CREATE TABLE three (x INTEGER); INSERT INTO nowhere VALUES (1);",
        ])
        let database = try openSQLiteDatabase()
        XCTAssertThrowsError(try Migrator.migrate(database: database, directory: migrations)) { error in
            guard case MigrationError.failed(let file, let underlying)? = error as? MigrationError else {
                return XCTFail("unexpected \(error)")
            }
            XCTAssertEqual(file, "0003_broken.sql")
            XCTAssertTrue(underlying.message.contains("nowhere"), underlying.description)
        }
        // 1 and 2 stay applied; 3 left nothing behind, not even its first table.
        XCTAssertEqual(try Migrator.applied(database: database).map(\.version), [1, 2])
        XCTAssertThrowsError(try count("three", in: database))
        XCTAssertEqual(try count("two", in: database), 0)
    }

    func testRefusesAGap() throws {
        let migrations = try makeMigrations(["0001_a.sql": "SELECT 1;", "0003_c.sql": "SELECT 1;"])
        XCTAssertThrowsError(try Migrator.migrate(database: try openSQLiteDatabase(), directory: migrations)) { error in
            XCTAssertEqual(error as? MigrationError, .gap(expected: 2, found: "0003_c.sql"))
            XCTAssertTrue("\(error)".contains("version 2 is missing"))
        }
    }

    func testRefusesAMissingFirstVersion() throws {
        let migrations = try makeMigrations(["0002_b.sql": "SELECT 1;"])
        XCTAssertThrowsError(try Migrator.migrations(in: migrations)) { error in
            XCTAssertEqual(error as? MigrationError, .gap(expected: 1, found: "0002_b.sql"))
        }
    }

    func testRefusesDuplicateVersions() throws {
        let migrations = try makeMigrations([
            "0001_a.sql": "SELECT 1;", "0002_b.sql": "SELECT 1;", "0002_c.sql": "SELECT 1;",
        ])
        XCTAssertThrowsError(try Migrator.migrations(in: migrations)) { error in
            XCTAssertEqual(error as? MigrationError, .duplicateVersion(2, files: ["0002_b.sql", "0002_c.sql"]))
        }
    }

    func testRefusesAMisnamedSQLFileAndIgnoresOtherFiles() throws {
        let misnamed = try makeMigrations(["0001_a.sql": "SELECT 1;", "initial.sql": "SELECT 1;"], folder: "misnamed")
        XCTAssertThrowsError(try Migrator.migrations(in: misnamed)) { error in
            XCTAssertEqual(error as? MigrationError, .badFileName("initial.sql"))
        }
        let withReadme = try makeMigrations(["0001_a.sql": "SELECT 1;", "README.md": "notes"], folder: "readme")
        XCTAssertEqual(try Migrator.migrations(in: withReadme).map(\.fileName), ["0001_a.sql"])
    }

    func testRefusesAnEmptyOrMissingDirectory() throws {
        let empty = try makeMigrations([:])
        XCTAssertEqual(
            Result(catching: { try Migrator.migrations(in: empty) }).failure as? MigrationError,
            .noMigrations(path: empty.path))
        let missing = directory.appendingPathComponent("nope")
        guard
            case MigrationError.unreadableDirectory? = Result(catching: { try Migrator.migrations(in: missing) })
                .failure
        else { return XCTFail("a missing directory must be an error") }
    }

    func testReadsADirectoryThroughASymlink() throws {
        let link = directory.appendingPathComponent("sql-link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: Self.sqlDirectory)
        XCTAssertEqual(try Migrator.migrations(in: link).first?.fileName, "0001_initial.sql")
    }

    func testRefusesADatabaseMigratedByANewerVersion() throws {
        let database = try openSQLiteDatabase()
        try Migrator.migrate(
            database: database,
            directory: try makeMigrations(["0001_a.sql": "SELECT 1;", "0002_b.sql": "SELECT 1;"], folder: "newer"))
        let older = try makeMigrations(["0001_a.sql": "SELECT 1;"], folder: "older")
        XCTAssertThrowsError(try Migrator.migrate(database: database, directory: older)) { error in
            XCTAssertEqual(error as? MigrationError, .unknownAppliedVersion(2, name: "b"))
        }
    }

    /// Writes `files` into a fresh folder of this test's directory.
    private func makeMigrations(_ files: [String: String], folder: String = "migrations") throws -> URL {
        let folder = directory.appendingPathComponent(folder, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, text) in files {
            try text.write(to: folder.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return folder
    }
}

extension Result where Failure == any Error {
    var failure: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
