import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one connection that runs every write transaction of a process (`pushgate serve`),
/// committing the writes that arrive together in one transaction (group commit). Share one
/// writer between all the process's stores on one file.
///
/// Why: with a connection per FastCGI thread, the Token Reporter (one upsert per request)
/// ran at a fraction of its rate today (docs/performance.md) with a p99 several times
/// higher. Each commit by one
/// connection invalidated the page cache of all the others, so the next writer re-read its
/// pages (~18 `pread` a request); every request paid its own BEGIN IMMEDIATE, COMMIT and WAL
/// frames; and the write lock went from thread to thread. On one connection the page cache
/// stays valid, and one COMMIT appends a page changed by many requests once.
///
/// There is no writer thread: jobs meet in a `WriteBatcher`, whose leader runs the batch's
/// jobs one after another in one transaction and commits. When a job throws, the batch is
/// rolled back and run again with each job in a SAVEPOINT of its own, so that only that job
/// fails.
final class GroupCommitWriter: @unchecked Sendable {
    // @unchecked: `database` is only used by the batcher's one leader at a time, and a job's
    // fields only by the leader that runs it until the batcher wakes its caller.
    private let database: Database
    private let batcher = WriteBatcher<Job>(maximumBatch: GroupCommitWriter.maximumBatch, gathers: true) { $0.runsAlone }

    /// Bounds how long the last job of a batch waits for the ones before it.
    static let maximumBatch = 256

    /// Opens the writer's own connection to the database at `path`, configured as the
    /// stores' are (WAL, foreign keys); `busyTimeoutMilliseconds` is how long it waits for
    /// another process's (the CLI's) write lock.
    public init(
        path: String, busyTimeoutMilliseconds: Int = 5000, synchronous: Database.Synchronous = .normal,
        autoCheckpoint: Bool = true, metrics: GroupCommitMetrics = .off
    ) throws {
        batcher.record(in: metrics)
        database = try Database(
            path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, synchronous: synchronous,
            autoCheckpoint: autoCheckpoint)
    }

    /// Runs `body` in a write transaction, probably together with other callers' bodies, and
    /// returns once that transaction committed (or throws what `body` threw, with its changes
    /// rolled back). `body` must be plain database work on its inputs: it may run two or three
    /// times, when another job of its batch throws or the batch fails to commit. It must not
    /// call `write` itself (a precondition stops that).
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        try perform(runsAlone: false, body)
    }

    /// A PASSIVE WAL checkpoint on the writer's own connection, run between two batches.
    ///
    /// Why here: SQLite starts the WAL over only when a write transaction begins with every
    /// frame already checkpointed. A checkpoint on another connection never finds that
    /// while writes keep coming (frames are appended during it), so under a steady load the
    /// WAL grew without end, each commit paying for new file pages. Run between batches, the
    /// checkpoint sees the last frame, and the next batch's BEGIN starts the WAL over.
    /// Writes queued meanwhile wait for it: run a checkpoint on another connection first, so
    /// that this one only has the frames appended since.
    @discardableResult
    public func checkpoint() throws -> (walFrames: Int, checkpointed: Int) {
        try betweenBatches { try $0.checkpoint() }
    }

    /// Runs `body` on the writer's connection outside any transaction, once the batch before
    /// it has committed and before the next one begins.
    func betweenBatches<T>(_ body: (Database) throws -> T) throws -> T {
        try perform(runsAlone: true, body)
    }

    private func perform<T>(runsAlone: Bool, _ body: (Database) throws -> T) throws -> T {
        // The caller blocks until the leader is done with `body` and has let go of it.
        try withoutActuallyEscaping(body) { body in
            var value: T?
            let job = Job(runsAlone: runsAlone) { database in value = try body(database) }
            try batcher.submit(job) { batch in
                run(batch)
                return batch.map(\.failure)
            }
            guard let value else { preconditionFailure("a job finished without its value") }
            return value
        }
    }

    /// Jobs waiting for a leader to take them (tests use it to line a batch up).
    var queuedJobCount: Int { batcher.queuedCount }

    /// Seconds since the oldest write not yet finished was queued, nil when none is: a write
    /// that waits far longer than the busy timeout means the writer is stuck (`/readyz`).
    public func oldestWriteAge() -> Double? { batcher.oldestAge() }

    /// Leaves each job of `batch` with its outcome and without its body. Nothing is published
    /// here; the batcher wakes the jobs once this returns, after their COMMIT. A job that runs
    /// alone is always a batch of its own.
    private func run(_ batch: [Job]) {
        defer {
            for job in batch { job.body = nil }
        }
        if let job = batch.first, job.runsAlone {
            do {
                try job.run(database)
            } catch {
                job.failure = error
            }
            return
        }
        do {
            try database.run("BEGIN IMMEDIATE")
        } catch {
            // Another process held the write lock past the busy timeout: nothing ran, and each
            // job fails as it would have waiting on its own.
            for job in batch { job.failure = error }
            return
        }
        var committable = true
        if let failure = runTogether(batch) {
            guard batch.count > 1 else {
                // Alone, the job's error is its outcome, and nothing of it may stay.
                batch[0].failure = failure
                if database.isInTransaction { try? database.run("ROLLBACK") }
                return
            }
            committable = runAgainInSavepoints(batch)
        }
        if committable {
            do {
                try database.run("COMMIT")
                return
            } catch {
                // Below: a failed COMMIT (a deferred foreign key, SQLITE_BUSY, I/O) may leave
                // the transaction open.
            }
        }
        if database.isInTransaction { try? database.run("ROLLBACK") }
        // Nothing of the batch is committed. Alone, one job's fault cannot fail its neighbours.
        for job in batch {
            job.failure = nil
            do {
                try database.writeTransaction { try job.run(database) }
            } catch {
                job.failure = error
            }
        }
    }

    /// Runs the jobs one after another in the open transaction, up to the first that throws;
    /// returns what it threw, nil when none did.
    ///
    /// Why not a savepoint per job from the start: a page written inside a savepoint is first
    /// copied to the sub-journal, which SQLite spills to a temporary file past 64 KiB and
    /// never truncates within the transaction. With a savepoint per job, a Token Reporter
    /// request wrote markedly more WAL and cost `serve` more CPU. Jobs rarely
    /// throw; when one does, its batch pays for a second pass.
    private func runTogether(_ batch: [Job]) -> (any Error)? {
        for job in batch {
            do {
                try job.run(database)
            } catch {
                return error
            }
        }
        return nil
    }

    /// Rolls back what `runTogether` left and runs the batch again in a new transaction, each
    /// job in its own savepoint: a job that throws is rolled back to it and keeps its error.
    /// False when the transaction as a whole is lost: SQLite rolled it back by itself
    /// (SQLITE_FULL, SQLITE_IOERR, …), or it could not begin, or a savepoint could not be
    /// released.
    private func runAgainInSavepoints(_ batch: [Job]) -> Bool {
        do {
            if database.isInTransaction { try database.run("ROLLBACK") }
            try database.run("BEGIN IMMEDIATE")
        } catch {
            return false
        }
        for job in batch {
            do {
                try database.run("SAVEPOINT job")
                do {
                    try job.run(database)
                } catch {
                    guard database.isInTransaction else { return false }
                    try database.run("ROLLBACK TO job")
                    job.failure = error
                }
                try database.run("RELEASE job")
            } catch {
                return false
            }
        }
        return true
    }
}

/// One caller's write, as the leader sees it.
private final class Job {
    /// The caller's body, storing its value where the caller reads it. Dropped before the
    /// caller is woken: its `withoutActuallyEscaping` checks that nothing kept it.
    var body: ((Database) throws -> Void)?
    var failure: (any Error)?
    /// Runs by itself outside any transaction (`betweenBatches`), not in a batch.
    let runsAlone: Bool

    init(runsAlone: Bool = false, _ body: @escaping (Database) throws -> Void) {
        self.runsAlone = runsAlone
        self.body = body
    }

    func run(_ database: Database) throws {
        guard let body else { preconditionFailure("a write job ran after it finished") }
        try body(database)
    }
}
