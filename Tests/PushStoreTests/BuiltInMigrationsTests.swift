import Foundation
import XCTest

@testable import PushStore

/// The migrations built into the binary are every file of the top-level `sql/sqlite/` and
/// `sql/postgresql/`, in order, byte for byte: what the build's plugin lists from the folders
/// is what the folders hold.
final class BuiltInMigrationsTests: StoreTestCase {
    func testTheBuiltInSQLiteMigrationsAreTheFilesOfTheirFolder() throws {
        try assertBuiltInMigrations(of: .sqlite, areTheFilesOf: Self.sqlDirectory)
    }

    func testTheBuiltInPostgreSQLMigrationsAreTheFilesOfTheirFolder() throws {
        try assertBuiltInMigrations(of: .postgresql, areTheFilesOf: Self.postgreSQLDirectory)
    }

    func testBothEnginesHaveTheSameMigrations() throws {
        XCTAssertEqual(
            try Migration.builtIn(for: .postgresql).map(\.fileName),
            try Migration.builtIn(for: .sqlite).map(\.fileName),
            "every migration has a twin of the same number and name on each engine")
    }

    /// A new database on the engine under test migrates to the newest version with the built-in
    /// migrations alone, then has nothing left to apply.
    func testANewStoreMigratesToTheNewestVersion() throws {
        let all = try Migration.builtIn(for: Self.engine)
        let applied: [String]
        let history: any MigrationHistory
        switch Self.engine {
        case .sqlite:
            let store = try SQLiteStore(path: databasePath)
            applied = try store.migrate()
            XCTAssertEqual(try store.pendingMigrations(), [])
            XCTAssertEqual(try store.migrate(), [])
            history = store
        case .postgresql:
            let store = PostgreSQLStore(configuration: try XCTUnwrap(postgreSQLConfiguration))
            applied = try store.migrate()
            XCTAssertEqual(try store.pendingMigrations(), [])
            XCTAssertEqual(try store.migrate(), [])
            history = store
        }
        XCTAssertEqual(applied, all.map(\.fileName))
        XCTAssertEqual(try history.appliedMigrations().map(\.version), Array(1...all.count))
        XCTAssertEqual(try history.appliedMigrations().map(\.name), all.map(\.name))
    }

    /// Lists the folder itself rather than through `Migrator.migrations(in:)`, so that a file the
    /// migrator would refuse (misnamed, say) fails here too.
    private func assertBuiltInMigrations(
        of engine: SQLEngine, areTheFilesOf directory: URL, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        let builtIn = try Migration.builtIn(for: engine)
        XCTAssertEqual(
            builtIn.map(\.fileName), names,
            "the \(engine.rawValue) migrations built in differ from \(directory.path): each file needs its line in the list beside it",
            file: file, line: line)
        XCTAssertEqual(builtIn.map(\.version), Array(1...builtIn.count), file: file, line: line)
        for migration in builtIn where names.contains(migration.fileName) {
            let text = try String(contentsOf: directory.appendingPathComponent(migration.fileName), encoding: .utf8)
            XCTAssertEqual(migration.sql, text, migration.fileName, file: file, line: line)
        }
    }
}
