import Foundation
import XCTest

@testable import PushStore

/// 0002 applies on top of 0001 and brings the outbox's tables.
final class OutboxMigrationTests: StoreTestCase {

    // SQLite only: it tests migrating an existing SQLite database.
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireSQLite()
    }
    func testTheOutboxMigrationAddsItsTables() throws {
        let database = try openSQLiteDatabase()
        let applied = try Migrator.migrate(database: database, directory: Self.sqlDirectory)
        XCTAssertEqual(Array(applied.prefix(2)), ["0001_initial.sql", "0002_outbox.sql"])
        let tables = try database.withStatement("SELECT name FROM sqlite_schema WHERE type = 'table'") { row in
            var names: Set<String> = []
            while try row.step() { names.insert(row.string(0) ?? "") }
            return names
        }
        XCTAssertTrue(tables.isSuperset(of: ["outbox_payloads", "outbox", "delivery_log"]), "\(tables)")
    }
}
