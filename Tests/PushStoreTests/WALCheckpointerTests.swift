import PushCore
import PushTesting
import Foundation
import XCTest

@testable import PushStore

final class WALCheckpointerTests: StoreTestCase {

    // SQLite only: it tests SQLite's WAL checkpointer, which PostgreSQL does not use.
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireSQLite()
    }
    /// Four threads write without pause, as the Token Reporter benchmark does: the passes on
    /// the checkpointer's own connection never copy the last frame, so only the writer's pass
    /// lets the WAL start over. Past `restartFrames` it does, again and again, and the WAL
    /// file stays a fraction of what went through it.
    func testUnderASteadyLoadTheWALStartsOverInsteadOfGrowing() throws {
        let wal = try writeSteadily(rows: 20_000, restartFrames: 200)
        // What the writers append while a pass runs grows with the machine's load, so the
        // size the file reaches is no measure (on a busy host it passed 20,000 pages once
        // the WAL had started over); that it started over is, as its header says. (A control
        // without the threshold cannot be had: on a busy host the writers leave gaps in
        // which the checkpointer's own passes copy everything, and the WAL starts over too.)
        XCTAssertGreaterThan(wal.checkpointSequence, 0, "the WAL never started over")
    }

    /// `stop` checkpoints once more, so a clean stop leaves the rows in the database file.
    func testStopCopiesWhatTheWALHolds() throws {
        try createTable()
        let writer = try GroupCommitWriter(path: databasePath, autoCheckpoint: false)
        let checkpointer = WALCheckpointer(
            store: try SQLiteStore(path: databasePath, autoCheckpoint: false), writer: writer,
            intervalMilliseconds: 60_000
        ) { XCTFail("checkpoint failed: \($0)") }
        checkpointer.start()
        for row in 1...50 { try writer.write { try Self.insertRow(row, in: $0) } }
        XCTAssertEqual(try rowsInDatabaseFileAlone(), 0, "the writes are in the WAL only")

        checkpointer.stop()

        XCTAssertEqual(try rowsInDatabaseFileAlone(), 50)
    }

    /// A connection that never read has no WAL open yet: flushing skips it.
    func testFlushToDiskOnAFreshAndOnAWritingConnection() throws {
        try createTable()
        let fresh = try Database(path: databasePath)
        XCTAssertNoThrow(try fresh.flushToDisk())
        try fresh.writeTransaction { try Self.insertRow(1, in: fresh) }
        XCTAssertNoThrow(try fresh.flushToDisk())
        XCTAssertEqual(try count("pages", in: openSQLiteDatabase()), 1)
    }

    // MARK: - Helpers

    /// Writes `rows` rows of a page each from four threads through one writer while a
    /// checkpointer runs every 5 ms; returns the size the WAL file reached (SQLite reuses it
    /// from the start when the WAL starts over, and truncates it only when the last
    /// connection closes), and its header's checkpoint sequence number.
    private func writeSteadily(rows: Int, restartFrames: Int) throws -> (bytes: Int, checkpointSequence: UInt32) {
        try createTable()
        let writer = try GroupCommitWriter(path: databasePath, autoCheckpoint: false)
        let failures = Locked<[String]>([])
        let checkpointer = WALCheckpointer(
            store: try SQLiteStore(path: databasePath, autoCheckpoint: false), writer: writer,
            intervalMilliseconds: 5, restartFrames: restartFrames
        ) { error in failures.withLock { $0.append("\(error)") } }
        checkpointer.start()
        let next = Locked(0)
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread {
                defer { done.leave() }
                while true {
                    let row = next.withLock { n -> Int in
                        n += 1
                        return n
                    }
                    guard row <= rows else { return }
                    do {
                        try writer.write { try Self.insertRow(row, in: $0) }
                    } catch {
                        failures.withLock { $0.append("row \(row): \(error)") }
                        return
                    }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "the writers did not finish")
        checkpointer.stop()
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(try count("pages", in: openSQLiteDatabase()), Int64(rows))
        return (try walFileSize(), try walCheckpointSequence())
    }

    private func createTable() throws {
        try openSQLiteDatabase().execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, data BLOB NOT NULL)")
    }

    /// A row of ~4,000 bytes: a page of its own in a 4 KiB-page database.
    private static func insertRow(_ id: Int, in database: Database) throws {
        try database.withStatement("INSERT INTO pages (id, data) VALUES (?, zeroblob(4000))") { statement in
            try statement.bind(Int64(id), at: 1)
            try statement.run()
        }
    }

    /// The rows a copy of the database file sees without the WAL beside it: what checkpoints
    /// have copied into it.
    private func rowsInDatabaseFileAlone() throws -> Int64 {
        let copy = directory.appendingPathComponent("copy-\(UUID().uuidString).sqlite").path
        try FileManager.default.copyItem(atPath: databasePath, toPath: copy)
        return try count("pages", in: Database(path: copy))
    }

    private func walFileSize() throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: databasePath + "-wal")
        return (attributes[.size] as? Int) ?? 0
    }
}
