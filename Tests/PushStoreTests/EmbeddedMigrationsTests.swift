import Foundation
import XCTest

@testable import PushStore

/// The migrations built into the binary are `sql/`'s and `sql/postgresql/`'s, byte for byte:
/// this fails after a change under `sql/` until `scripts/embed-migrations` is run.
final class EmbeddedMigrationsTests: XCTestCase {
    private static let stale = "Sources/PushStore/Schema/EmbeddedMigrations.swift is out of date with sql/: run scripts/embed-migrations"

    func testTheBuiltInSQLiteMigrationsAreTheFilesOfSQL() throws {
        let files = try Migrator.migrations(in: StoreTestCase.sqlDirectory)
        let builtIn = try Migration.builtIn(for: .sqlite)
        XCTAssertEqual(builtIn.map(\.fileName), files.map(\.fileName), Self.stale)
        for (embedded, file) in zip(builtIn, files) {
            XCTAssertEqual(embedded.sql, file.sql, "\(file.fileName): \(Self.stale)")
        }
    }

    func testTheBuiltInPostgreSQLMigrationsAreTheFilesOfSQLPostgreSQL() throws {
        let files = try Migrator.migrations(in: StoreTestCase.postgreSQLDirectory)
        let builtIn = try Migration.builtIn(for: .postgresql)
        XCTAssertEqual(builtIn.map(\.fileName), files.map(\.fileName), Self.stale)
        for (embedded, file) in zip(builtIn, files) {
            XCTAssertEqual(embedded.sql, file.sql, "\(file.fileName): \(Self.stale)")
        }
    }

    /// The generator's own check agrees (it is what a contributor runs before committing).
    func testTheGeneratorFindsTheFileUpToDate() throws {
        let repository = StoreTestCase.sqlDirectory.deletingLastPathComponent()
        let process = Process()
        process.executableURL = repository.appendingPathComponent("scripts/embed-migrations")
        process.arguments = ["--check"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
    }

    /// A store migrated by the built-in migrations records each of them.
    func testAStoreMigratesWithTheBuiltInMigrations() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("embedded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("test.sqlite").path)
        let applied = try store.migrate()
        XCTAssertEqual(applied, try Migration.builtIn(for: .sqlite).map(\.fileName))
        XCTAssertEqual(try store.pendingMigrations(), [])
        XCTAssertEqual(try store.migrate(), [])
    }
}
