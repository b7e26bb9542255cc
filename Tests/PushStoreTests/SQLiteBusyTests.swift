import Foundation
import PushTesting
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

    /// A Token Reporter report that repeats what is stored (the common one) is answered from a
    /// reader: it needs no write lock, so another process holding it (a backup, a `pushgate`
    /// command) does not hold up a phone's re-report. One that changes something still waits
    /// for the lock, and is unavailable past the busy timeout.
    func testAnUnchangedReportNeedsNoWriteLock() throws {
        try requireSQLite()
        _ = try makeSQLiteStore()
        let store = try SQLiteStore(path: databasePath, busyTimeoutMilliseconds: 100, clock: { 1_700_000_000 })
        let report = [Fixture.channelToken(.calls, seed: 1), Fixture.channelToken(.msgs, seed: 2)]
        try store.saveAccountTokens(selector: "alice", username: "alice@example.com", tokens: report)
        let other = try Database(path: databasePath)
        try other.execute("BEGIN IMMEDIATE")
        try store.saveAccountTokens(selector: "alice", username: "alice@example.com", tokens: report)
        try store.saveAccountTokens(selector: "alice", username: nil, tokens: report)
        for changed in [
            (username: "bob@example.com", tokens: report),
            (username: "alice@example.com", tokens: [Fixture.channelToken(.calls, seed: 3)]),
            (username: "alice@example.com", tokens: [Fixture.channelToken(.calls, seed: 2)]),
        ] {
            XCTAssertThrowsError(
                try store.saveAccountTokens(selector: "alice", username: changed.username, tokens: changed.tokens)
            ) { error in
                XCTAssertTrue(error is StoreUnavailable, "\(changed): \(error)")
            }
        }
        XCTAssertThrowsError(try store.saveAccountTokens(selector: "carol", username: nil, tokens: report)) { error in
            XCTAssertTrue(error is StoreUnavailable, "a new account: \(error)")
        }
        try other.execute("ROLLBACK")
        XCTAssertEqual(try store.devices().map(\.token), [Fixture.apnsToken(1), Fixture.apnsToken(2)])
    }
}
