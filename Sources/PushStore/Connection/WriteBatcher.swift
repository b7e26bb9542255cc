import Foundation

/// Writes that several threads hand in at the same moment, run together by one of them, so
/// that they share one round trip and one commit (group commit without a writer thread, as
/// `GroupCommitWriter` does for SQLite).
///
/// A caller queues its item; the first to find nobody leading becomes the leader: it takes
/// what is queued (up to `maximumBatch`, its own item first), runs the batch, hands every
/// caller its outcome, and passes the lead to the first caller queued meanwhile. So a batch
/// forms while the one before it runs, a lone caller never waits for company, and no caller
/// leads for longer than one batch. Up to `maximumLeaders` batches run at a time.
final class WriteBatcher<Item>: @unchecked Sendable {
    // @unchecked: `queue` and `leaders` are only touched under `lock`, and so is an entry's
    // `mustLead`; an entry's `failure` is written by its leader before it signals `wakeUp`.
    private let lock = NSLock()
    private var queue: [Entry] = []
    /// Callers running a batch, or woken to run the next one.
    private var leaders = 0
    private let maximumBatch: Int
    private let maximumLeaders: Int
    /// Set once by `serve` (`record(in:)`), read by each leader under `lock`.
    private var metrics: GroupCommitMetrics

    /// - Parameters:
    ///   - maximumBatch: the most items one batch carries.
    ///   - maximumLeaders: how many batches may run at once (each on its own connection).
    init(maximumBatch: Int, maximumLeaders: Int = 1, metrics: GroupCommitMetrics = .off) {
        precondition(maximumBatch > 0 && maximumLeaders > 0)
        self.maximumBatch = maximumBatch
        self.maximumLeaders = maximumLeaders
        self.metrics = metrics
    }

    /// Records each batch's size and its oldest item's wait in `metrics` from now on.
    func record(in metrics: GroupCommitMetrics) {
        lock.withLock { self.metrics = metrics }
    }

    /// Items waiting for a leader to take them (tests use it to line a batch up).
    var queuedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return queue.count
    }

    /// Returns once `item` was written with the batch it joined, or throws its own failure.
    /// `run` gets a batch and returns one outcome per item, in order (nil: written); the
    /// leader calls its own caller's `run`, so every caller must pass the same logic.
    func submit(_ item: Item, run: ([Item]) -> [(any Error)?]) throws {
        let entry = Entry(item)
        lock.lock()
        queue.append(entry)
        let leads = leaders < maximumLeaders
        if leads {
            leaders += 1
            entry.mustLead = true
        }
        lock.unlock()
        if !leads {
            entry.wakeUp.wait()
        }
        // Read after the wait: a leader sets it, under the lock, before signalling.
        if lock.withLock({ entry.mustLead }) {
            lead(entry, run)
        }
        if let failure = entry.failure { throw failure }
    }

    /// Runs one batch: `own` first, then the oldest items no other leader is about to take.
    private func lead(_ own: Entry, _ run: ([Item]) -> [(any Error)?]) {
        lock.lock()
        queue.removeAll { $0 === own }
        var batch = [own]
        var kept: [Entry] = []
        for entry in queue {
            if batch.count < maximumBatch && !entry.mustLead {
                batch.append(entry)
            } else {
                kept.append(entry)
            }
        }
        queue = kept
        let metrics = self.metrics
        lock.unlock()
        metrics.recordBatch(size: batch.count, waitedNanoseconds: DispatchTime.now().uptimeNanoseconds &- own.queuedAt)

        let outcomes = run(batch.map(\.item))
        precondition(
            outcomes.count == batch.count, "a batch of \(batch.count) came back with \(outcomes.count) outcomes")
        for (entry, outcome) in zip(batch, outcomes) {
            entry.failure = outcome
        }

        lock.lock()
        let next = queue.first { !$0.mustLead }
        if let next {
            next.mustLead = true
        } else {
            leaders -= 1
        }
        lock.unlock()
        next?.wakeUp.signal()
        for entry in batch.dropFirst() {
            entry.wakeUp.signal()
        }
    }

    private final class Entry {
        let item: Item
        var failure: (any Error)?
        /// This entry's caller runs a batch (it found a leader's place free, or a leader
        /// passed it the lead) instead of waiting for an outcome.
        var mustLead = false
        let wakeUp = DispatchSemaphore(value: 0)
        /// Monotonic nanoseconds.
        let queuedAt = DispatchTime.now().uptimeNanoseconds

        init(_ item: Item) { self.item = item }
    }
}
