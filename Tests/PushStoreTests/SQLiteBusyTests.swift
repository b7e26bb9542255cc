import Foundation
import PushCore
import XCTest

@testable import PushStore

/// On SQLite, a write that waited for another process's write lock past the busy timeout is
/// the engine-neutral `StoreUnavailable` (answered 503 with `Retry-After`), as a PostgreSQL
/// server that went away is, and the same store writes again once the lock is released.
final class SQLiteBusyTests: StoreTestCase {
    func testAWriteBusyPastItsTimeoutIsStoreUnavailable() throws {
        try requireSQLite()
        _ = try makeSQLiteStore()
        let store = try SQLiteStore(path: databasePath, busyTimeoutMilliseconds: 100)
        let other = try Database(path: databasePath)
        try other.execute("BEGIN IMMEDIATE")
        XCTAssertThrowsError(try store.addSenderKey(name: "k", digest: "d")) { error in
            XCTAssertTrue(error is StoreUnavailable, "\(error)")
            XCTAssertTrue("\(error)".contains("database is locked"), "\(error)")
        }
        // Reading does not need the write lock (WAL).
        XCTAssertEqual(try store.senderKeys(), [])
        try other.execute("ROLLBACK")
        try store.addSenderKey(name: "k", digest: "d")
        XCTAssertEqual(try store.senderKeyName(digest: "d"), "k")
    }
}
