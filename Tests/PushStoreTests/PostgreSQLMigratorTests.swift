import PushTesting
import Foundation
import PushCore
import XCTest

@testable import PushStore

/// PostgreSQL's migrations applied by PostgreSQLMigrator: the same versions as SQLite's, each
/// once, even when several nodes start together.
final class PostgreSQLMigratorTests: StoreTestCase {
    // PostgreSQL only: SQLite's migrator has MigratorTests.
    override func setUpWithError() throws {
        try super.setUpWithError()
        try XCTSkipIf(Self.engine != .postgresql, "needs PUSHGATE_TEST_DATABASE_URL")
    }

    private func makeUnmigratedStore() throws -> PostgreSQLStore {
        PostgreSQLStore(configuration: try XCTUnwrap(postgreSQLConfiguration))
    }

    func testTheSameVersionsAsSQLite() throws {
        let sqlite = try Migrator.migrations(in: Self.sqlDirectory).map(\.fileName)
        let postgresql = try Migrator.migrations(in: Self.postgreSQLDirectory).map(\.fileName)
        XCTAssertEqual(postgresql, sqlite, "every migration has a twin of the same number and name on each engine")
    }

    func testMigratesOnceAndRecordsEachVersion() throws {
        let store = try makeUnmigratedStore()
        let files = try Migrator.migrations(in: Self.postgreSQLDirectory).map(\.fileName)
        XCTAssertEqual(try store.pendingMigrations(directory: Self.postgreSQLDirectory).map(\.fileName), files)
        XCTAssertEqual(try store.migrate(directory: Self.postgreSQLDirectory), files)
        XCTAssertEqual(try store.migrate(directory: Self.postgreSQLDirectory), [])
        XCTAssertEqual(try store.pendingMigrations(directory: Self.postgreSQLDirectory), [])
        XCTAssertEqual(try store.appliedMigrations().map(\.version), Array(1...files.count))
    }

    /// Four "nodes" start at once: the advisory lock lets one apply everything and the others
    /// find nothing left, so every migration is applied exactly once and none fails.
    func testNodesStartingTogetherApplyEachMigrationOnce() throws {
        let files = try Migrator.migrations(in: Self.postgreSQLDirectory).map(\.fileName)
        let applied = Locked<[String]>([])
        let errors = Locked<[String]>([])
        let done = DispatchGroup()
        let stores = try (0..<4).map { _ in try makeUnmigratedStore() }
        for store in stores {
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    let files = try store.migrate(directory: Self.postgreSQLDirectory)
                    applied.withLock { $0 += files }
                } catch {
                    errors.withLock { $0.append("\(error)") }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(errors.withLock { $0 }, [])
        XCTAssertEqual(applied.withLock { $0 }.sorted(), files.sorted())
        XCTAssertEqual(try stores[0].appliedMigrations().count, files.count)
    }

    /// A broken migration is rolled back whole and reported with its file and SQLSTATE; the
    /// ones before it stay applied.
    func testAFailingMigrationIsRolledBackAndNamed() throws {
        let directory = self.directory.appendingPathComponent("migrations")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try "CREATE TABLE a (x BIGINT);".write(
            to: directory.appendingPathComponent("0001_a.sql"), atomically: true, encoding: .utf8)
        try "CREATE TABLE b (x BIGINT); INSERT INTO b VALUES ('not a number');".write(
            to: directory.appendingPathComponent("0002_b.sql"), atomically: true, encoding: .utf8)
        let store = try makeUnmigratedStore()
        XCTAssertThrowsError(try store.migrate(directory: directory)) { error in
            let failure = error as? PostgreSQLMigrationError
            XCTAssertEqual(failure?.file, "0002_b.sql", "\(error)")
            XCTAssertEqual(failure?.underlying.sqlState, "22P02", "\(error)")
        }
        XCTAssertEqual(try store.appliedMigrations().map(\.version), [1])
        let tableB = try store.pool.withConnection { connection in
            try connection.withStatement("SELECT to_regclass('b') IS NOT NULL") { row in
                _ = try row.step()
                return row.int64(0)
            }
        }
        XCTAssertEqual(tableB, 0, "0002's table was rolled back with it")
    }
}
