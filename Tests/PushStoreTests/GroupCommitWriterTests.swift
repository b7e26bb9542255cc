import PushTesting
import Foundation
import PushCore
import XCTest

@testable import PushStore

final class GroupCommitWriterTests: StoreTestCase {

    // SQLite only: it tests SQLite's group-commit writer, which PostgreSQL does not use.
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireSQLite()
    }
    struct Boom: Error {}

    /// Sixteen threads on four stores sharing one writer, as `serve` wires them, each store
    /// write paired with a raw job on the writer: every one of them is committed, exactly once.
    func testEveryWriteOfManyThreadsThroughSeveralStoresIsCommittedOnce() throws {
        let threadCount = 16
        let writesPerThread = 150
        _ = try makeSQLiteStore()
        try openSQLiteDatabase().execute("CREATE TABLE counter (n INTEGER NOT NULL); INSERT INTO counter VALUES (0)")
        let writer = try GroupCommitWriter(path: databasePath)
        let stores = try (0..<4).map { _ in try SQLiteStore(path: databasePath, writer: writer) }

        let errors = Locked<[String]>([])
        let done = DispatchGroup()
        for thread in 0..<threadCount {
            done.enter()
            let store = stores[thread % stores.count]
            Thread {
                defer { done.leave() }
                do {
                    for write in 0..<writesPerThread {
                        let n = thread * writesPerThread + write
                        try store.saveAccountTokens(
                            selector: "selector-\(n)", username: "user-\(thread)",
                            tokens: [Self.channelToken(.calls, n * 2), Self.channelToken(.msgs, n * 2 + 1)])
                        try writer.write { try $0.run("UPDATE counter SET n = n + 1") }
                    }
                } catch {
                    errors.withLock { $0.append("thread \(thread): \(error)") }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "writers did not finish")
        XCTAssertEqual(errors.withLock { $0 }, [])

        let database = try openSQLiteDatabase()
        let writes = Int64(threadCount * writesPerThread)
        XCTAssertEqual(try count("acrobits_accounts", in: database), writes * 2)
        XCTAssertEqual(try count("devices", in: database), writes * 2)
        XCTAssertEqual(try database.withStatement("SELECT n FROM counter") { try $0.step() ? $0.int64(0) : -1 }, writes)
    }

    /// `/readyz` reads how long the oldest unfinished write has been waiting: nothing while
    /// the writer is idle, something while a write runs or waits, nothing again after.
    func testOldestWriteAgeCoversRunningAndQueuedWritesOnly() throws {
        _ = try makeSQLiteStore()
        let writer = try GroupCommitWriter(path: databasePath)
        XCTAssertNil(writer.oldestWriteAge())

        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        done.enter()
        Thread {
            defer { done.leave() }
            _ = try? writer.write { _ in
                started.signal()
                release.wait()
            }
        }.start()
        XCTAssertEqual(started.wait(timeout: .now() + 60), .success, "the write did not start")
        let running = try XCTUnwrap(writer.oldestWriteAge(), "a running write has an age")
        XCTAssertGreaterThanOrEqual(running, 0)

        done.enter()
        Thread {
            defer { done.leave() }
            _ = try? writer.write { _ in }
        }.start()
        waitUntil(writer, hasQueued: 1)
        XCTAssertNotNil(writer.oldestWriteAge())

        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the writes did not finish")
        XCTAssertNil(writer.oldestWriteAge(), "an idle writer has no waiting write")
    }

    /// A lined-up batch shares one transaction: each job sees the rows of the jobs before it,
    /// a connection outside sees none of them while the batch runs, and every caller, the
    /// moment its `write` returns, sees the whole batch committed.
    func testABatchIsOneTransactionCommittedBeforeAnyCallerReturns() throws {
        try createJobTables()
        let writer = try GroupCommitWriter(path: databasePath)
        // Used by the jobs, on the leader's thread, one after another.
        let outside = Locked(try openSQLiteDatabase())
        let seen = Locked<[(insideBatch: Int64, outside: Int64)]>([])
        let seenOnReturn = Locked<[Int64]>([])
        let path = databasePath
        let jobCount = 8
        let outcomes = try runAsOneBatch(
            writer,
            (0..<jobCount).map { job in
                { @Sendable database in
                    try Self.insertJob(job, in: database)
                    let inside = try Self.rowCount("jobs", in: database)
                    let committed = try outside.withLock { try Self.rowCount("jobs", in: $0) }
                    seen.withLock { $0.append((inside, committed)) }
                }
            },
            afterReturning: {
                let count = (try? Self.rowCount("jobs", in: Database(path: path))) ?? -1
                seenOnReturn.withLock { $0.append(count) }
            })
        XCTAssertEqual(outcomes.filter { $0 != nil }.count, 0)
        let counts = seen.withLock { $0 }
        XCTAssertEqual(counts.map(\.insideBatch).sorted(), (1...Int64(jobCount)).map { $0 }, "one transaction")
        XCTAssertEqual(counts.map(\.outside), Array(repeating: 0, count: jobCount), "nothing visible before COMMIT")
        XCTAssertEqual(seenOnReturn.withLock { $0 }, Array(repeating: Int64(jobCount), count: jobCount))
    }

    /// Every thread reads its write back on its store's own connection the moment `write`
    /// returns: a result is only handed out once it is committed.
    func testAWriteIsVisibleToOtherConnectionsAsSoonAsItReturns() throws {
        _ = try makeSQLiteStore()
        let writer = try GroupCommitWriter(path: databasePath)
        let misses = Locked<[String]>([])
        let done = DispatchGroup()
        for thread in 0..<8 {
            done.enter()
            let path = databasePath
            Thread {
                defer { done.leave() }
                do {
                    let store = try SQLiteStore(path: path, writer: writer)
                    for write in 0..<100 {
                        let n = thread * 100 + write
                        try store.saveAccountTokens(
                            selector: "selector-\(n)", username: nil, tokens: [Self.channelToken(.calls, n)])
                        if try store.accountDevices(selector: "selector-\(n)")[.calls] == nil {
                            misses.withLock { $0.append("selector-\(n)") }
                        }
                    }
                } catch {
                    misses.withLock { $0.append("thread \(thread): \(error)") }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "writers did not finish")
        XCTAssertEqual(misses.withLock { $0 }, [])
    }

    /// In one batch, a job whose statement fails and a job that throws after writing each get
    /// their own error and leave nothing; the others commit. The first throw ends the batch's
    /// first pass; the second runs every job in a savepoint of its own.
    func testAFailingJobLeavesNoTraceAndSparesTheRestOfItsBatch() throws {
        try createJobTables()
        let writer = try GroupCommitWriter(path: databasePath)
        let runs = Locked<[Int]>([])
        let outcomes = try runAsOneBatch(
            writer,
            (0..<8).map { job in
                { @Sendable database in
                    runs.withLock { $0.append(job) }
                    try Self.insertJob(job, in: database)
                    if job == 2 { try Self.insertJob(100, parent: 999, in: database) }  // foreign key fails now
                    if job == 5 { throw Boom() }
                }
            })
        XCTAssertTrue(
            (outcomes[2] as? DatabaseError)?.isConstraintViolation ?? false, "\(String(describing: outcomes[2]))")
        XCTAssertTrue(outcomes[5] is Boom)
        XCTAssertEqual(outcomes.enumerated().filter { $0.element != nil }.map(\.offset), [2, 5])
        XCTAssertEqual(try jobIDs(), [0, 1, 3, 4, 6, 7])
        // The batch's order is the order its callers queued in: read it off the second pass.
        let order = runs.withLock { $0 }
        let secondPass = Array(order.suffix(8))
        XCTAssertEqual(secondPass.sorted(), Array(0..<8), "\(order)")
        guard let firstThrow = secondPass.firstIndex(where: { $0 == 2 || $0 == 5 }) else { return }
        XCTAssertEqual(order, Array(secondPass.prefix(through: firstThrow)) + secondPass, "up to the first throw, then all")
    }

    /// A job that throws on its own is rolled back, keeps its error, and runs once; the
    /// writer goes on with the next write.
    func testAJobAloneThatThrowsIsRolledBackAndRunsOnce() throws {
        try createJobTables()
        let writer = try GroupCommitWriter(path: databasePath)
        var runs = 0
        XCTAssertThrowsError(
            try writer.write { database in
                runs += 1
                try Self.insertJob(1, in: database)
                throw Boom()
            }
        ) { XCTAssertTrue($0 is Boom, "\($0)") }
        XCTAssertEqual(runs, 1)
        XCTAssertEqual(try jobIDs(), [])
        try writer.write { try Self.insertJob(2, in: $0) }
        XCTAssertEqual(try jobIDs(), [2])
    }

    /// A deferred foreign key fails the batch's COMMIT itself: the batch is rolled back and
    /// each job run again alone, so only the offending job fails.
    func testABatchWhoseCommitFailsIsRerunJobByJob() throws {
        try createJobTables()
        let writer = try GroupCommitWriter(path: databasePath)
        let runs = Locked([Int](repeating: 0, count: 8))
        let outcomes = try runAsOneBatch(
            writer,
            (0..<8).map { job in
                { @Sendable database in
                    runs.withLock { $0[job] += 1 }
                    if job == 4 {
                        // Checked at COMMIT instead of at the statement; off again after it.
                        try database.run("PRAGMA defer_foreign_keys = ON")
                        try Self.insertJob(job, parent: 999, in: database)
                    } else {
                        try Self.insertJob(job, in: database)
                    }
                }
            })
        let failure = outcomes[4] as? DatabaseError
        XCTAssertTrue(failure?.isConstraintViolation ?? false, "\(String(describing: outcomes[4]))")
        XCTAssertEqual(outcomes.enumerated().filter { $0.element != nil }.map(\.offset), [4])
        XCTAssertEqual(try jobIDs(), [0, 1, 2, 3, 5, 6, 7])
        XCTAssertEqual(runs.withLock { $0 }, Array(repeating: 2, count: 8), "in the batch, then alone")
    }

    /// A job after which SQLite has rolled the whole transaction back (as it may on
    /// SQLITE_FULL or SQLITE_IOERR; here the job's own ROLLBACK stands in) loses the jobs run
    /// before it: they are run again alone and committed.
    func testABatchLostMidWayIsRerunJobByJob() throws {
        try createJobTables()
        let writer = try GroupCommitWriter(path: databasePath)
        let outcomes = try runAsOneBatch(
            writer,
            (0..<8).map { job in
                { @Sendable database in
                    try Self.insertJob(job, in: database)
                    if job == 3 {
                        try database.run("ROLLBACK")
                        throw Boom()
                    }
                }
            })
        XCTAssertTrue(outcomes[3] is Boom)
        XCTAssertEqual(outcomes.enumerated().filter { $0.element != nil }.map(\.offset), [3])
        XCTAssertEqual(try jobIDs(), [0, 1, 2, 4, 5, 6, 7])
        XCTAssertFalse(try openSQLiteDatabase().isInTransaction)
    }

    /// Under load with every third job throwing, nothing hangs, and exactly the jobs that
    /// returned normally are committed.
    func testThrowingJobsUnderLoadNeitherDeadlockNorLeakIntoTheCommit() throws {
        try createJobTables()
        let writer = try GroupCommitWriter(path: databasePath)
        let threadCount = 12
        let writesPerThread = 200
        let failures = Locked(0)
        let unexpected = Locked<[String]>([])
        let done = DispatchGroup()
        for thread in 0..<threadCount {
            done.enter()
            Thread {
                defer { done.leave() }
                for write in 0..<writesPerThread {
                    let n = thread * writesPerThread + write
                    do {
                        try writer.write { database in
                            try Self.insertJob(n, in: database)
                            if n % 3 == 0 { throw Boom() }
                        }
                    } catch is Boom {
                        failures.withLock { $0 += 1 }
                    } catch {
                        unexpected.withLock { $0.append("\(n): \(error)") }
                    }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "writers did not finish")
        XCTAssertEqual(unexpected.withLock { $0 }, [])
        let total = threadCount * writesPerThread
        XCTAssertEqual(failures.withLock { $0 }, (0..<total).filter { $0 % 3 == 0 }.count)
        XCTAssertEqual(try jobIDs(), (0..<total).filter { $0 % 3 != 0 })
    }

    /// Another process holding the write lock past the busy timeout fails the waiting
    /// writes with SQLITE_BUSY; once it lets go, the writer works again.
    func testAnotherConnectionsWriteLockFailsTheBatchAndThenLetsGo() throws {
        try createJobTables()
        let writer = try GroupCommitWriter(path: databasePath, busyTimeoutMilliseconds: 100)
        let other = try openSQLiteDatabase()
        try other.run("BEGIN IMMEDIATE")
        XCTAssertThrowsError(try writer.write { try Self.insertJob(1, in: $0) }) { error in
            XCTAssertTrue((error as? DatabaseError)?.isBusy ?? false, "\(error)")
        }
        try other.run("COMMIT")
        try writer.write { try Self.insertJob(2, in: $0) }
        XCTAssertEqual(try jobIDs(), [2])
    }

    /// A job queued between writes runs alone, outside any transaction, after the writes
    /// queued before it committed and before the ones queued after it began.
    func testAJobBetweenBatchesRunsAloneAfterTheWritesQueuedBeforeIt() throws {
        try createJobTables()
        let writer = try GroupCommitWriter(path: databasePath)
        let done = DispatchGroup()
        func onThread(_ body: @escaping @Sendable () throws -> Void) {
            done.enter()
            Thread {
                defer { done.leave() }
                do { try body() } catch { XCTFail("\(error)") }
            }.start()
        }
        let release = holdTheLead(of: writer, leaving: done)
        onThread { try writer.write { try Self.insertJob(1, in: $0) } }
        waitUntil(writer, hasQueued: 1)
        let seen = Locked<(inTransaction: Bool, jobs: Int64)?>(nil)
        onThread {
            try writer.betweenBatches { database in
                seen.withLock { $0 = (database.isInTransaction, try! Self.rowCount("jobs", in: database)) }
            }
        }
        waitUntil(writer, hasQueued: 2)
        onThread { try writer.write { try Self.insertJob(2, in: $0) } }
        waitUntil(writer, hasQueued: 3)
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the jobs did not finish")
        let observed = seen.withLock { $0 }
        XCTAssertEqual(observed?.inTransaction, false)
        XCTAssertEqual(observed?.jobs, 1, "it ran after the write queued before it and before the one after")
        XCTAssertEqual(try jobIDs(), [1, 2])
    }

    /// While four threads keep writing, the writer's checkpoint runs between two batches: it
    /// finds every frame there is and copies them all, and the commit after it starts the WAL
    /// over instead of appending to it.
    func testTheWritersCheckpointUnderLoadCatchesUpAndTheWALStartsOver() throws {
        try createJobTables()
        let writer = try GroupCommitWriter(path: databasePath, autoCheckpoint: false)
        let written = Locked(0)
        let stopping = Locked(false)
        let done = DispatchGroup()
        for thread in 0..<4 {
            done.enter()
            Thread {
                defer { done.leave() }
                var n = thread * 1_000_000
                while !stopping.withLock({ $0 }) {
                    n += 1
                    do {
                        try writer.write { [n] in try Self.insertJob(n, in: $0) }
                    } catch {
                        XCTFail("\(error)")
                        return
                    }
                    written.withLock { $0 += 1 }
                }
            }.start()
        }
        let deadline = Date().addingTimeInterval(30)
        while written.withLock({ $0 }) < 300, Date() < deadline { usleep(1000) }
        // Nothing else checkpoints here (autoCheckpoint off), so the WAL has not started over
        // since the load began: its header's checkpoint sequence number says when it does.
        let sequenceBefore = try walCheckpointSequence()
        let caughtUp = try writer.checkpoint()
        stopping.withLock { $0 = true }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the writers did not stop")
        // A commit after the checkpoint, in case every writer saw the stop before writing.
        try writer.write { try Self.insertJob(0, in: $0) }

        // How many frames the load left, and how many come after, is the scheduler's choice;
        // what must hold is that the checkpoint copied every frame there was, and that the
        // next commit started the WAL over (rewrote its header) instead of appending.
        XCTAssertGreaterThan(caughtUp.walFrames, 0, "the load wrote to the WAL")
        XCTAssertEqual(caughtUp.checkpointed, caughtUp.walFrames, "no frame was appended while it ran")
        XCTAssertGreaterThan(try walCheckpointSequence(), sequenceBefore, "the writes after it started the WAL over")
        XCTAssertEqual(try jobIDs().count, written.withLock { $0 } + 1)
    }

    // MARK: - Helpers

    /// Runs `jobs` on `writer` from threads of their own, as one batch: a first write keeps
    /// the lead until all of them are queued, and the next leader takes them together.
    /// Returns each job's error, nil for a job that committed; `afterReturning` runs on a
    /// job's thread as soon as its `write` returned normally.
    private func runAsOneBatch(
        _ writer: GroupCommitWriter, _ jobs: [@Sendable (Database) throws -> Void],
        afterReturning: @escaping @Sendable () -> Void = {}
    ) throws -> [(any Error)?] {
        XCTAssertLessThanOrEqual(jobs.count, GroupCommitWriter.maximumBatch)
        let done = DispatchGroup()
        let release = holdTheLead(of: writer, leaving: done)
        let outcomes = Locked([(any Error)?](repeating: nil, count: jobs.count))
        for (index, job) in jobs.enumerated() {
            done.enter()
            Thread {
                defer { done.leave() }
                do {
                    try writer.write(job)
                    afterReturning()
                } catch {
                    outcomes.withLock { $0[index] = error }
                }
            }.start()
        }
        waitUntil(writer, hasQueued: jobs.count)
        release.signal()
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the batch did not finish")
        return outcomes.withLock { $0 }
    }

    /// Starts a write on a thread of its own (in `done`) that keeps the writer's lead until
    /// the returned semaphore is signalled, so that what is queued meanwhile lines up behind it.
    private func holdTheLead(of writer: GroupCommitWriter, leaving done: DispatchGroup) -> DispatchSemaphore {
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        done.enter()
        Thread {
            defer { done.leave() }
            try? writer.write { _ in
                holding.signal()
                release.wait()
            }
        }.start()
        holding.wait()
        return release
    }

    /// Waits up to 30 s until `count` jobs wait for the writer's lead.
    private func waitUntil(_ writer: GroupCommitWriter, hasQueued count: Int) {
        let deadline = Date().addingTimeInterval(30)
        while writer.queuedJobCount < count, Date() < deadline {
            usleep(1000)
        }
        XCTAssertEqual(writer.queuedJobCount, count, "the queue did not line up")
    }

    /// Tables of the writer tests' own, so that a job is one row and a bad parent a foreign
    /// key violation.
    private func createJobTables() throws {
        try openSQLiteDatabase().execute(
            """
            CREATE TABLE parents (id INTEGER PRIMARY KEY);
            CREATE TABLE jobs (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents (id));
            """)
    }

    private static func insertJob(_ id: Int, parent: Int64? = nil, in database: Database) throws {
        try database.withStatement("INSERT INTO jobs (id, parent_id) VALUES (?, ?)") { statement in
            try statement.bind(Int64(id), at: 1)
            try statement.bind(parent, at: 2)
            try statement.run()
        }
    }

    private static func rowCount(_ table: String, in database: Database) throws -> Int64 {
        try database.withStatement("SELECT count(*) FROM \(table)") { try $0.step() ? $0.int64(0) : -1 }
    }

    private func jobIDs() throws -> [Int] {
        try openSQLiteDatabase().withStatement("SELECT id FROM jobs ORDER BY id") { row in
            var ids: [Int] = []
            while try row.step() { ids.append(Int(row.int64(0))) }
            return ids
        }
    }

    /// A token of its own for write `n`, so that no two writes share a device.
    private static func channelToken(_ channel: AcrobitsChannel, _ n: Int) -> ChannelToken {
        let token = DeviceToken(
            bytes: withUnsafeBytes(of: UInt64(n).bigEndian, Array.init) + [UInt8](repeating: 7, count: 24))
        return ChannelToken(channel: channel, appID: Fixture.apnsAppID, token: token, reportedToken: token.base64)
    }
}
