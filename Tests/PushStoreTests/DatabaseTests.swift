import Foundation
import XCTest

@testable import PushStore

final class DatabaseTests: StoreTestCase {

    // SQLite only: it tests SQLite's connection (PRAGMAs, busy handler, statement cache).
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireSQLite()
    }
    func testOpensInWALModeWithForeignKeys() throws {
        let database = try openSQLiteDatabase()
        XCTAssertEqual(try pragma("journal_mode", database), "wal")
        XCTAssertEqual(try pragma("foreign_keys", database), "1")
        XCTAssertEqual(try pragma("synchronous", database), "1")  // NORMAL
        XCTAssertEqual(database.busyTimeoutMilliseconds, 5000)

        let full = try Database(path: databasePath, busyTimeoutMilliseconds: 250, synchronous: .full)
        XCTAssertEqual(try pragma("synchronous", full), "2")
        XCTAssertEqual(full.busyTimeoutMilliseconds, 250)
    }

    func testTypedBindsRoundTrip() throws {
        let database = try openSQLiteDatabase()
        try database.execute("CREATE TABLE t (i INTEGER, s TEXT, b BLOB, f INTEGER, n TEXT)")
        let text = "naïve \u{0}zero and 🎉"
        try database.withStatement("INSERT INTO t VALUES (?, ?, ?, ?, ?)") { statement in
            try statement.bind(Int64.min, at: 1)
            try statement.bind(text, at: 2)
            try statement.bind([0, 1, 255], at: 3)
            try statement.bind(true, at: 4)
            try statement.bind(nil as String?, at: 5)
            try statement.run()
        }
        try database.withStatement("INSERT INTO t VALUES (?, ?, ?, ?, ?)") { statement in
            try statement.bind(0, at: 1)
            try statement.bind("", at: 2)
            try statement.bind([UInt8](), at: 3)
            try statement.bind(false, at: 4)
            try statement.bind("x", at: 5)
            try statement.run()
        }
        let rows = try database.withStatement("SELECT i, s, b, f, n FROM t ORDER BY rowid") { row in
            var rows: [(Int64, String?, [UInt8]?, Bool?, String?)] = []
            while try row.step() {
                rows.append((row.int64(0), row.string(1), row.blob(2), row.bool(3), row.string(4)))
            }
            return rows
        }
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows[0].0, Int64.min)
        XCTAssertEqual(rows[0].1, text, "embedded NUL and non-ASCII survive")
        XCTAssertEqual(rows[0].2, [0, 1, 255])
        XCTAssertEqual(rows[0].3, true)
        XCTAssertNil(rows[0].4)
        // Empty text and blob are values, not NULL.
        XCTAssertEqual(rows[1].1, "")
        XCTAssertEqual(rows[1].2, [])
        XCTAssertEqual(rows[1].3, false)
    }

    func testStatementsAreCachedAndResetAfterUse() throws {
        let database = try openSQLiteDatabase()
        let first = try database.withStatement("SELECT 1") { ObjectIdentifier($0) }
        let second = try database.withStatement("SELECT 1") { ObjectIdentifier($0) }
        XCTAssertEqual(first, second)
        // A nested use of the same SQL gets its own statement instead of clobbering the outer.
        try database.withStatement("SELECT ?") { outer in
            try outer.bind("outer", at: 1)
            XCTAssertTrue(try outer.step())
            let inner = try database.withStatement("SELECT ?") { inner -> String? in
                XCTAssertFalse(inner === outer)
                try inner.bind("inner", at: 1)
                _ = try inner.step()
                return inner.string(0)
            }
            XCTAssertEqual(inner, "inner")
            XCTAssertEqual(outer.string(0), "outer")
        }
    }

    func testWriteTransactionRollsBackWhenTheBodyThrows() throws {
        struct Boom: Error {}
        let database = try openSQLiteDatabase()
        try database.execute("CREATE TABLE t (x INTEGER)")
        XCTAssertThrowsError(
            try database.writeTransaction {
                try database.run("INSERT INTO t VALUES (1)")
                throw Boom()
            }
        ) { XCTAssertTrue($0 is Boom) }
        XCTAssertFalse(database.isInTransaction)
        XCTAssertEqual(try count("t", in: database), 0)

        try database.writeTransaction { try database.run("INSERT INTO t VALUES (1)") }
        XCTAssertEqual(try count("t", in: database), 1)
    }

    func testAWriterWaitsForTheBusyTimeoutThenFailsWithBusy() throws {
        let holder = try openSQLiteDatabase()
        let waiter = try Database(path: databasePath, busyTimeoutMilliseconds: 200)
        try holder.execute("CREATE TABLE t (x INTEGER)")
        try holder.run("BEGIN IMMEDIATE")
        defer { try? holder.run("ROLLBACK") }

        let start = Date()
        XCTAssertThrowsError(try waiter.writeTransaction { try waiter.run("INSERT INTO t VALUES (1)") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.isBusy, true, "\(error)")
        }
        let waited = Date().timeIntervalSince(start)
        XCTAssertGreaterThanOrEqual(waited, 0.19)
        // Not forever (the holder never lets go); how much over 200 ms is the machine's load.
        XCTAssertLessThan(waited, 30)
        XCTAssertFalse(waiter.isInTransaction)
    }

    func testAWriterGetsTheLockOnceItIsFreed() throws {
        let path = databasePath
        try openSQLiteDatabase().execute("CREATE TABLE t (x INTEGER)")
        let locked = DispatchSemaphore(value: 0)
        let released = expectation(description: "released")
        // The holder lives on its own thread: a connection is never shared between threads.
        Thread {
            do {
                let holder = try Database(path: path)
                try holder.run("BEGIN IMMEDIATE")
                locked.signal()
                usleep(100_000)
                try holder.run("COMMIT")
            } catch {
                XCTFail("holder: \(error)")
                locked.signal()
            }
            released.fulfill()
        }.start()
        locked.wait()

        let waiter = try Database(path: path, busyTimeoutMilliseconds: 5000)
        let start = Date()
        try waiter.writeTransaction { try waiter.run("INSERT INTO t VALUES (1)") }
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.05, "it did wait for the holder")
        wait(for: [released], timeout: 5)
        XCTAssertEqual(try count("t", in: waiter), 1)
    }

    func testErrorsCarryCodesMessageAndSQL() throws {
        let database = try openSQLiteDatabase()
        try database.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)")
        try database.run("INSERT INTO t VALUES (1)")
        XCTAssertThrowsError(try database.run("INSERT INTO t VALUES (1)")) { error in
            guard let error = error as? DatabaseError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.resultCode, 19)  // SQLITE_CONSTRAINT
            XCTAssertEqual(error.extendedResultCode, 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
            XCTAssertTrue(error.isConstraintViolation)
            XCTAssertEqual(error.sql, "INSERT INTO t VALUES (1)")
            XCTAssertTrue(error.description.contains("UNIQUE constraint failed: t.x"), error.description)
            XCTAssertTrue(error.description.contains("INSERT INTO t VALUES (1)"), error.description)
        }
        XCTAssertThrowsError(try database.run("SELECT * FROM missing")) { error in
            XCTAssertTrue("\(error)".contains("no such table: missing"), "\(error)")
        }
        XCTAssertThrowsError(try database.run("SELECT 1; SELECT 2")) { error in
            XCTAssertTrue("\(error)".contains("exactly one SQL statement"), "\(error)")
        }
    }

    func testOpeningAnImpossiblePathNamesIt() {
        let path = directory.appendingPathComponent("no/such/dir/db.sqlite").path
        XCTAssertThrowsError(try Database(path: path)) { error in
            XCTAssertTrue("\(error)".contains(path), "\(error)")
        }
    }

    private func pragma(_ name: String, _ database: Database) throws -> String? {
        try database.withStatement("PRAGMA \(name)") { row in
            _ = try row.step()
            return row.string(0)
        }
    }
}

/// Checkpoints on the responder's schedule instead of on a request's commit.
final class CheckpointTests: StoreTestCase {

    // SQLite only: it tests SQLite's WAL checkpoints.
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireSQLite()
    }
    func testWithAutoCheckpointOffOnlyAnExplicitCheckpointEmptiesTheWAL() throws {
        let writer = try SQLiteStore(path: databasePath, autoCheckpoint: false)
        try writer.migrate(directory: Self.sqlDirectory)
        let database = try Database(path: databasePath, autoCheckpoint: false)
        try database.execute("CREATE TABLE t (x BLOB)")
        // Well past SQLite's default threshold of 1000 pages.
        for _ in 0..<60 {
            try database.execute("INSERT INTO t VALUES (zeroblob(100000))")
        }
        let wal = databasePath + "-wal"
        let before = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int)
        XCTAssertGreaterThan(before, 4_000_000, "no commit checkpointed")
        let result = try writer.checkpoint()
        XCTAssertGreaterThan(result.walFrames, 1000)
        XCTAssertEqual(result.checkpointed, result.walFrames, "nothing held it back")
        try database.execute("INSERT INTO t VALUES (1)")
        let frames = try writer.checkpoint().walFrames
        XCTAssertLessThan(frames, 10, "after a complete checkpoint the WAL starts over")
    }
}
