import Foundation

/// Writes that several threads hand in at the same moment, run together by one of them, so
/// that they share one round trip and one commit (group commit without a writer thread, as
/// `GroupCommitWriter` does for SQLite).
///
/// A caller queues its item; the first to find nobody leading becomes the leader: it takes
/// what is queued (up to `maximumBatch`, its own item first), runs the batch, hands every
/// caller its outcome, and passes the lead to the first caller queued meanwhile. So a batch
/// forms while the one before it runs, a lone caller never waits for company, and no caller
/// leads for longer than one batch. One batch runs at a time.
final class WriteBatcher<Item>: @unchecked Sendable {
    // @unchecked: `queue`, `isLeading` and `metrics` are only touched under `lock`; an entry's
    // `failure` and `mustLead` are written by the leader before it signals the entry's `wakeUp`.
    private let lock = NSLock()
    private var queue: [Entry] = []
    private var isLeading = false
    private let maximumBatch: Int
    /// Set once by `serve` (`record(in:)`).
    private var metrics = GroupCommitMetrics.off

    /// - Parameter maximumBatch: the most items one batch carries.
    init(maximumBatch: Int) {
        precondition(maximumBatch > 0)
        self.maximumBatch = maximumBatch
    }

    /// Records each batch's size and its oldest item's wait in `metrics` from now on.
    func record(in metrics: GroupCommitMetrics) {
        lock.withLock { self.metrics = metrics }
    }

    /// Items waiting for a leader to take them (tests use it to line a batch up).
    var queuedCount: Int {
        lock.withLock { queue.count }
    }

    /// Returns once `item` was written with the batch it joined, or throws its own failure.
    /// `run` gets a batch and returns one outcome per item, in order (nil: written); the
    /// leader calls its own caller's `run`, so every caller must pass the same logic.
    func submit(_ item: Item, run: ([Item]) -> [(any Error)?]) throws {
        let entry = Entry(item)
        lock.lock()
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
        let batch = Array(queue.prefix(maximumBatch))
        queue.removeFirst(batch.count)
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
