import Dispatch
import Foundation
import Logging
import PushCore

/// A service of `pushgate serve`: every `interval` (and soon after start), removes the devices,
/// unregistered apps' tokens and dead letters the retention lets go, on a thread of its own.
///
/// Cheap on a big table: each kind is a range of an index, deleted `batchSize` rows per short
/// transaction, so reports go on between batches. One node at a time: a run starts only
/// with a claim on the store's `housekeeping` row, which another node's run of the last
/// `interval` holds; and should two run anyway, each batch deletes only what is expired, so
/// the second finds nothing.
final class Housekeeper: @unchecked Sendable {
    // @unchecked: `store` is used only on `queue`; `timer` is set up in init and cancelled once.
    private let store: any HousekeepingStore
    private let policy: RetentionPolicy
    private let interval: Int64
    private let batchSize: Int
    private let logger: Logger
    private let clock: @Sendable () -> Int64
    /// Called with the time at start and on every tick (each minute), whether this node runs
    /// housekeeping or not: serve records the database's size on it (`DatabaseSizeSampler`),
    /// at start so that a restart's hour has its sample too.
    private let everyTick: @Sendable (Int64) -> Void
    private let queue = DispatchQueue(label: "pushgate.housekeeping")
    private let timer: DispatchSourceTimer
    private var stopping = false
    private let lock = NSLock()

    static let defaultIntervalSeconds: Int64 = 3_600
    static let defaultBatchSize = 500
    /// A run's most batches: one run never holds the thread for long; what is left goes in
    /// the next run.
    static let maximumBatches = 2_000

    init(
        store: any HousekeepingStore, policy: RetentionPolicy, interval: Int64 = defaultIntervalSeconds,
        firstRunAfterSeconds: Int = 60, batchSize: Int = defaultBatchSize, logger: Logger,
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        everyTick: @escaping @Sendable (Int64) -> Void = { _ in }
    ) {
        self.everyTick = everyTick
        self.store = store
        self.policy = policy
        self.interval = interval
        self.batchSize = batchSize
        self.logger = logger
        self.clock = clock
        timer = DispatchSource.makeTimerSource(queue: queue)
        // Every minute: a run starts only when the store's claim is `interval` old, so a
        // restart does not wait a whole interval, and nodes take turns.
        timer.schedule(deadline: .now() + .seconds(firstRunAfterSeconds), repeating: .seconds(60), leeway: .seconds(5))
        timer.setEventHandler { [weak self] in self?.runIfDue() }
    }

    func start() {
        queue.async { [weak self] in
            guard let self else { return }
            self.everyTick(self.clock())
        }
        timer.resume()
    }

    /// Stops the timer and waits for a run in progress to end at its next batch.
    func stop() {
        lock.withLock { stopping = true }
        timer.cancel()
        queue.sync {}
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    private func runIfDue() {
        everyTick(clock())
        do {
            let now = clock()
            guard try store.claimHousekeepingRun(now: now, interval: interval) else { return }
            let removed = try run(now: now)
            try store.recordHousekeepingRun(removed, at: now)
            if removed != HousekeepingCounts() {
                logger.info(
                    "housekeeping removed \(removed.devices) devices past retention, \(removed.unregisteredAppDevices) of unregistered apps, \(removed.deadLetters) dead letters"
                )
            }
        } catch {
            logger.warning("housekeeping failed, the next run tries again: \(error)")
        }
    }

    /// Batches until none is full (or the run's limit); returns what they removed.
    func run(now: Int64) throws -> HousekeepingCounts {
        var removed = HousekeepingCounts()
        for _ in 0..<Self.maximumBatches {
            if isStopping { break }
            let batch = try store.removeExpired(policy, now: now, limit: batchSize)
            removed = removed + batch
            if max(batch.devices, batch.unregisteredAppDevices, batch.deadLetters) < batchSize { break }
        }
        if removed != HousekeepingCounts() { _ = try store.deleteUnusedPayloads() }
        return removed
    }
}

extension Housekeeper: Service {
    var serviceName: String { "housekeeping" }
}
