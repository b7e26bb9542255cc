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
/// There is no writer thread. A caller queues its job; the first to find nobody leading
/// becomes the leader: it takes what is queued, runs the jobs one after another in one
/// transaction, commits, hands every job its outcome, and passes the lead to the first job
/// queued meanwhile, so a batch forms while the one before it commits and no caller leads
/// for longer than one batch. When a job throws, the batch is rolled back and run again
/// with each job in a SAVEPOINT of its own, so that only that job fails.
public final class GroupCommitWriter: @unchecked Sendable {
    // @unchecked: `queue`, `isLeading` and `leaderThread` are only touched under `lock`;
    // `database` only by the one leader, and a job's fields only by the leader that runs it
    // until its `wakeUp` is signalled (each hand-over is ordered by the lock or the semaphore).
    private let database: Database
    private let metrics: GroupCommitMetrics
    private let lock = NSLock()
    private var queue: [Job] = []
    private var isLeading = false
    /// How many jobs the last batch ran: more than one means callers are writing at once.
    private var lastBatchSize = 0
    /// The thread running a batch, so that a body calling `write` again fails loudly instead
    /// of waiting for itself forever.
    private var leaderThread: pthread_t?
    /// When the oldest job of the batch being run was queued (monotonic nanoseconds), nil
    /// between batches: with `queue`, what `oldestWriteAge` reads.
    private var runningSince: UInt64?

    /// Bounds how long the last job of a batch waits for the ones before it.
    static let maximumBatch = 256

    /// Below this many queued jobs, a leader under load yields its core once before it takes
    /// its batch (see `lead`).
    static let gatheringThreshold = 4

    /// Opens the writer's own connection to the database at `path`, configured as the
    /// stores' are (WAL, foreign keys); `busyTimeoutMilliseconds` is how long it waits for
    /// another process's (the CLI's) write lock.
    public init(
        path: String, busyTimeoutMilliseconds: Int = 5000, synchronous: Database.Synchronous = .normal,
        autoCheckpoint: Bool = true, metrics: GroupCommitMetrics = .off
    ) throws {
        self.metrics = metrics
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
            try submit(job)
            guard let value else { preconditionFailure("a job finished without its value") }
            return value
        }
    }

    /// Jobs waiting for a leader to take them (tests use it to line a batch up).
    var queuedJobCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return queue.count
    }

    /// Seconds since the oldest write not yet finished was queued, nil when none is: a write
    /// that waits far longer than the busy timeout means the writer is stuck (`/readyz`).
    public func oldestWriteAge() -> Double? {
        lock.lock()
        let oldest = [runningSince, queue.first?.queuedAt].compactMap { $0 }.min()
        lock.unlock()
        guard let oldest else { return nil }
        return Double(DispatchTime.now().uptimeNanoseconds &- oldest) / 1e9
    }

    private func submit(_ job: Job) throws {
        lock.lock()
        if let leaderThread, pthread_equal(leaderThread, pthread_self()) != 0 {
            lock.unlock()
            preconditionFailure("write called from inside a write body: it would wait for itself")
        }
        queue.append(job)
        let leads = !isLeading
        isLeading = true
        lock.unlock()
        if !leads {
            job.wakeUp.wait()
        }
        if leads || job.mustLead {
            lead()
        }
        if let failure = job.failure { throw failure }
    }

    /// Runs one batch, beginning with the caller's own job (first in the queue: the queue is
    /// empty whenever nobody leads, and the lead is only passed to the queue's first job).
    private func lead() {
        lock.lock()
        // Why yield: on the two cores that nginx and the responder threads share, a leader took
        // batches of 2-5 jobs while other threads were microseconds short of queueing theirs,
        // and a batch's BEGIN, COMMIT and WAL append cost about the same for 3 jobs as for 10.
        // Yielding once, when the last batch had company and the queue is still short, gave
        // batches of ~10 and cut serve's CPU per Token Reporter request by ~15% in alternating
        // runs. A lone writer (last batch of one) never waits, and with an idle core
        // sched_yield returns at once.
        if lastBatchSize > 1 && queue.count < Self.gatheringThreshold {
            lock.unlock()
            sched_yield()
            lock.lock()
        }
        leaderThread = pthread_self()
        let batch: [Job]
        if let first = queue.first, first.runsAlone {
            batch = [first]
        } else {
            batch = Array(queue.prefix(Self.maximumBatch).prefix { !$0.runsAlone })
        }
        queue.removeFirst(batch.count)
        lastBatchSize = batch.count
        runningSince = batch.first?.queuedAt
        lock.unlock()
        if let oldest = batch.first?.queuedAt {
            metrics.recordBatch(size: batch.count, waitedNanoseconds: DispatchTime.now().uptimeNanoseconds &- oldest)
        }

        run(batch)

        lock.lock()
        leaderThread = nil
        runningSince = nil
        let next = queue.first
        next?.mustLead = true
        isLeading = next != nil
        lock.unlock()
        next?.wakeUp.signal()
        for job in batch.dropFirst() {
            job.wakeUp.signal()
        }
    }

    /// Leaves each job of `batch` with its outcome and without its body. Nothing is published
    /// here; the caller wakes the jobs once this returns, after their COMMIT. A job that runs
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
    /// Set when the leader passes the lead to this job's caller instead of an outcome.
    var mustLead = false
    /// Runs by itself outside any transaction (`betweenBatches`), not in a batch.
    let runsAlone: Bool
    let wakeUp = DispatchSemaphore(value: 0)
    /// Monotonic nanoseconds.
    let queuedAt = DispatchTime.now().uptimeNanoseconds

    init(runsAlone: Bool = false, _ body: @escaping (Database) throws -> Void) {
        self.runsAlone = runsAlone
        self.body = body
    }

    func run(_ database: Database) throws {
        guard let body else { preconditionFailure("a write job ran after it finished") }
        try body(database)
    }
}
