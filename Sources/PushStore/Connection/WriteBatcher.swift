import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes that several threads hand in at the same moment, run together by one of them, so
/// that they share one round trip and one commit: group commit without a writer thread. The
/// one hand-off both engines use: SQLite's `GroupCommitWriter` runs its batches in one
/// transaction on its one connection, PostgreSQL's report path sends a batch in one call.
///
/// A caller queues its item; the first to find nobody leading becomes the leader: it takes
/// what is queued (up to `maximumBatch`, its own item first), runs the batch, hands every
/// caller its outcome, and passes the lead to the first caller queued meanwhile. So a batch
/// forms while the one before it runs, a lone caller never waits for company, and no caller
/// leads for longer than one batch. One batch runs at a time.
final class WriteBatcher<Item>: @unchecked Sendable {
    // @unchecked: `queue`, `isLeading`, `leaderThread`, `runningSince`, `lastBatchSize` and
    // `metrics` are only touched under `lock`; an entry's `failure` and `mustLead` are written
    // by the leader before it signals the entry's `wakeUp`.
    private let lock = NSLock()
    private var queue: [Entry] = []
    private var isLeading = false
    private let maximumBatch: Int
    /// Items that must be a batch of their own (a checkpoint between two transactions).
    private let runsAlone: (Item) -> Bool
    /// Whether a leader under load yields its core once before it takes its batch.
    private let gathers: Bool
    /// How many items the last batch ran: more than one means callers are writing at once.
    private var lastBatchSize = 0
    /// The thread running a batch, so that a batch that submits again fails loudly instead of
    /// waiting for itself forever.
    private var leaderThread: pthread_t?
    /// When the oldest item of the batch being run was queued (monotonic nanoseconds), nil
    /// between batches: with `queue`, what `oldestAge` reads.
    private var runningSince: UInt64?
    /// Set once by `serve` (`record(in:)`).
    private var metrics = GroupCommitMetrics.off

    /// Below this many queued items, a gathering leader under load yields once (see `lead`).
    static var gatheringThreshold: Int { 4 }

    /// - Parameters:
    ///   - maximumBatch: the most items one batch carries.
    ///   - gathers: yield the core once before taking a short batch while the last one had
    ///     company (see `lead`): worth it where a batch's fixed cost dwarfs an item's.
    ///   - runsAlone: items that must run in a batch of their own.
    init(maximumBatch: Int, gathers: Bool = false, runsAlone: @escaping (Item) -> Bool = { _ in false }) {
        precondition(maximumBatch > 0)
        self.maximumBatch = maximumBatch
        self.gathers = gathers
        self.runsAlone = runsAlone
    }

    /// Records each batch's size and its oldest item's wait in `metrics` from now on.
    func record(in metrics: GroupCommitMetrics) {
        lock.withLock { self.metrics = metrics }
    }

    /// Items waiting for a leader to take them (tests use it to line a batch up).
    var queuedCount: Int {
        lock.withLock { queue.count }
    }

    /// Seconds since the oldest item not yet finished was queued, nil when none is.
    func oldestAge() -> Double? {
        let oldest = lock.withLock { [runningSince, queue.first?.queuedAt].compactMap { $0 }.min() }
        guard let oldest else { return nil }
        return Double(DispatchTime.now().uptimeNanoseconds &- oldest) / 1e9
    }

    /// Returns once `item` was run with the batch it joined, or throws its own failure.
    /// `run` gets a batch and returns one outcome per item, in order (nil: written); the
    /// leader calls its own caller's `run`, so every caller must pass the same logic.
    func submit(_ item: Item, run: ([Item]) -> [(any Error)?]) throws {
        let entry = Entry(item)
        lock.lock()
        if let leaderThread, pthread_equal(leaderThread, pthread_self()) != 0 {
            lock.unlock()
            preconditionFailure("a batch submitted a write of its own: it would wait for itself")
        }
        queue.append(entry)
        let leads = !isLeading
        isLeading = true
        lock.unlock()
        if !leads {
            entry.wakeUp.wait()
        }
        if leads || entry.mustLead {
            lead(run)
        }
        if let failure = entry.failure { throw failure }
    }

    /// Runs one batch, beginning with the caller's own item: the queue is empty whenever
    /// nobody leads, and the lead is only passed to the queue's first entry.
    private func lead(_ run: ([Item]) -> [(any Error)?]) {
        lock.lock()
        // Why yield: on the two cores that nginx and the responder threads share, a leader took
        // batches of 2-5 items while other threads were microseconds short of queueing theirs,
        // and a SQLite batch's BEGIN, COMMIT and WAL append cost about the same for 3 items as
        // for 10 (docs/performance.md has the measurement). A lone writer (last batch of one)
        // never waits, and with an idle core sched_yield returns at once.
        if gathers && lastBatchSize > 1 && queue.count < Self.gatheringThreshold {
            lock.unlock()
            sched_yield()
            lock.lock()
        }
        leaderThread = pthread_self()
        let batch: [Entry]
        if let first = queue.first, runsAlone(first.item) {
            batch = [first]
        } else {
            batch = Array(queue.prefix(maximumBatch).prefix { !runsAlone($0.item) })
        }
        queue.removeFirst(batch.count)
        lastBatchSize = batch.count
        runningSince = batch.first?.queuedAt
        let metrics = self.metrics
        lock.unlock()
        if let oldest = batch.first?.queuedAt {
            metrics.recordBatch(size: batch.count, waitedNanoseconds: DispatchTime.now().uptimeNanoseconds &- oldest)
        }

        let outcomes = run(batch.map(\.item))
        precondition(
            outcomes.count == batch.count, "a batch of \(batch.count) came back with \(outcomes.count) outcomes")
        for (entry, outcome) in zip(batch, outcomes) {
            entry.failure = outcome
        }

        lock.lock()
        leaderThread = nil
        runningSince = nil
        let next = queue.first
        next?.mustLead = true
        isLeading = next != nil
        lock.unlock()
        next?.wakeUp.signal()
        for entry in batch.dropFirst() {
            entry.wakeUp.signal()
        }
    }

    private final class Entry {
        let item: Item
        var failure: (any Error)?
        /// Set when the leader passes the lead to this entry's caller instead of an outcome.
        var mustLead = false
        let wakeUp = DispatchSemaphore(value: 0)
        /// Monotonic nanoseconds.
        let queuedAt = DispatchTime.now().uptimeNanoseconds

        init(_ item: Item) { self.item = item }
    }
}
