import Foundation
import Logging
import PushCore

/// Delivers the durable outbox. One per process: a background thread claims due rows in
/// batches, hands each batch to the `Deliverer`, and completes every row's outcome in one
/// transaction; while nothing is due it sleeps, and publishers wake it with `notify()`.
/// Delivery is at least once: rows claimed by a worker that dies come back when their lease
/// runs out (or at once, with `releaseClaimsOnStart`), and are sent again. Every claim is
/// recorded under the worker's node id, so that several nodes share one outbox.
public final class OutboxWorker: @unchecked Sendable {
    // @unchecked: `state` and `wakeRequested` are only touched with `condition` locked; the
    // rest is immutable, and `runOnce` runs on one thread at a time (the worker's, or a
    // caller's that did not start it).
    private let store: OutboxStore
    private let deliverer: Deliverer
    private let configuration: OutboxWorkerConfiguration
    private let clock: @Sendable () -> Int64
    private let logger: Logger
    /// Pushes given up, logged once per episode: the first dead letter, and the first batch
    /// delivered without one.
    private let deadLetters: TroubleEpisode

    private let condition = NSCondition()
    private var state = State.notStarted
    /// Set by `notify()`, cleared before each claim: a notify that lands between an empty
    /// claim and the sleep is not lost.
    private var wakeRequested = false

    private enum State {
        case notStarted, running, stopping, stopped
    }

    /// - Parameters:
    ///   - store: the worker's own store connection (its transactions are the long ones).
    ///   - clock: unix milliseconds; decides what is due and when retries go. Sleeps use
    ///     the real time whatever the clock says.
    public init(
        store: OutboxStore, deliverer: Deliverer,
        configuration: OutboxWorkerConfiguration = OutboxWorkerConfiguration(),
        clock: @escaping @Sendable () -> Int64 = OutboxWorker.systemClock, logger: Logger
    ) {
        self.store = store
        self.deliverer = deliverer
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
        deadLetters = TroubleEpisode("outbox pushes given up as dead letters", logger: logger)
    }

    /// Unix milliseconds by the system's wall clock.
    @Sendable public static func systemClock() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Starts the thread; a second call does nothing.
    public func start() {
        condition.lock()
        defer { condition.unlock() }
        guard state == .notStarted else { return }
        state = .running
        let thread = Thread { [self] in run() }
        thread.name = "pushgate-outbox"
        thread.start()
    }

    /// Something was enqueued: look now instead of at the end of the sleep. Cheap; call it
    /// after every enqueue.
    public func notify() {
        condition.lock()
        wakeRequested = true
        condition.broadcast()
        condition.unlock()
    }

    /// Lets the batch in flight finish (delivered and completed), then returns once the
    /// thread has ended. Rows not claimed yet stay for the next start.
    public func stop() {
        condition.lock()
        defer { condition.unlock() }
        switch state {
        case .notStarted, .stopped:
            state = .stopped
            return
        case .running, .stopping:
            state = .stopping
            condition.broadcast()
            while state != .stopped { condition.wait() }
        }
    }

    /// One batch, start to end on the calling thread: claims up to `batchSize` due rows, fills
    /// the rest of the batch with a step of a publish still being queued, delivers them and
    /// completes them. Returns how many rows it claimed (0: nothing was due). For tests and a
    /// one-off drain (a CLI command) without starting the thread.
    @discardableResult
    public func runOnce() throws -> Int {
        guard let batch = try claim().batch else { return 0 }
        batch.deliver(with: deliverer)
        try finish(batch)
        return batch.claimed.count
    }

    /// The next batch, leased: due rows first (retries, pushes queued whole), then, when they
    /// do not fill it, the next step of a publish still being queued, whose rows come claimed.
    /// `fanOutsLeft` says whether a publish is still being queued (a step was taken and more
    /// is left); nil when the batch was full without one.
    private func claim() throws -> (batch: OutboxBatch?, fanOutsLeft: Bool?) {
        let now = clock()
        var claimed = try store.claimDue(
            limit: configuration.batchSize, now: now, lease: configuration.leaseMilliseconds,
            node: configuration.nodeID)
        var fanOutsLeft: Bool?
        if claimed.count < configuration.batchSize {
            do {
                let step = try store.continueFanOuts(
                    limit: configuration.batchSize - claimed.count, now: now, lease: configuration.leaseMilliseconds,
                    node: configuration.nodeID)
                claimed += step.claimed
                fanOutsLeft = step.remaining
            } catch let error where !claimed.isEmpty {
                // The rows claimed before it go out now rather than when their lease ends; the
                // step is tried again with the next batch.
                logger.error(
                    "outbox: a fan-out step failed; delivering the rows claimed before it",
                    metadata: ["error": "\(error)"])
                fanOutsLeft = true
            }
        }
        let batch = claimed.isEmpty ? nil : OutboxBatch(claimed, maxAttempts: configuration.retry.maxAttempts)
        return (batch, fanOutsLeft)
    }

    /// Waits for the batch's answers and completes its rows in one transaction.
    private func finish(_ batch: OutboxBatch) throws {
        let outcomes = batch.outcomes(policy: configuration.retry, clock: clock, logger: logger)
        try store.complete(outcomes, now: clock())
        report(outcomes)
    }

    // MARK: The thread

    /// The thread's loop, two batches deep: while the deliverer sends one batch, the store
    /// claims the next and completes the one before, so that the store's work and the
    /// upstream round trips overlap instead of adding up.
    private func run() {
        releaseClaims()
        var inFlight: OutboxBatch?
        var lastHousekeeping = clock()
        var workedSinceHousekeeping = false
        // What the last step said: while a publish is still to be queued, an empty claim
        // (another node was taking the step) is no reason to sleep.
        var fanOutsLeft = false
        while beginIteration() {
            var next: OutboxBatch?
            var claimFailed = false
            do {
                let claimed = try claim()
                next = claimed.batch
                next?.deliverInBackground(with: deliverer, logger: logger)
                if let left = claimed.fanOutsLeft { fanOutsLeft = left }
            } catch {
                logger.error("outbox claim or fan-out step failed", metadata: ["error": "\(error)"])
                claimFailed = true
            }
            if let previous = inFlight {
                finishLogging(previous)
                workedSinceHousekeeping = true
            }
            inFlight = next
            let now = clock()
            if now - lastHousekeeping >= configuration.housekeepingIntervalMilliseconds
                || (next == nil && workedSinceHousekeeping)
            {
                housekeeping()
                lastHousekeeping = now
                workedSinceHousekeeping = false
            }
            // Nothing in flight: nothing was due (or the store failed). Sleep until something
            // is due, or is enqueued, unless a publish is still to be queued.
            if claimFailed {
                sleep(milliseconds: configuration.errorPauseMilliseconds)
            } else if next == nil, !fanOutsLeft {
                sleepUntilDue()
            }
        }
        // stop(): the batch in flight is answered and completed, no new one is claimed.
        if let inFlight { finishLogging(inFlight) }
        condition.lock()
        state = .stopped
        condition.broadcast()
        condition.unlock()
    }

    private func finishLogging(_ batch: OutboxBatch) {
        do {
            try finish(batch)
        } catch {
            // Its rows stay claimed and come back when the lease runs out: at least once.
            logger.error(
                "outbox: completing a batch failed; its rows return when their lease ends",
                metadata: ["rows": "\(batch.claimed.count)", "error": "\(error)"])
            sleep(milliseconds: configuration.errorPauseMilliseconds)
        }
    }

    private func releaseClaims() {
        let node: String?
        switch configuration.releaseClaimsOnStart {
        case .none: return
        case .thisNode: node = configuration.nodeID
        case .everyNode: node = nil
        }
        do {
            let released = try store.releaseClaims(heldBy: node)
            if released > 0 {
                logger.notice(
                    "outbox: took back rows a previous worker held",
                    metadata: ["rows": "\(released)", "node": "\(node ?? "any")"])
            }
        } catch {
            logger.error(
                "outbox: releasing old claims failed; they return when their lease ends",
                metadata: ["error": "\(error)"])
        }
    }

    /// False once `stop()` was called; otherwise clears the wake request, as a claim follows.
    private func beginIteration() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard state == .running else { return false }
        wakeRequested = false
        return true
    }

    private func sleepUntilDue() {
        let now = clock()
        var deadline = now + configuration.idlePollMilliseconds
        do {
            if let due = try store.nextDueAt() { deadline = min(deadline, due) }
        } catch {
            logger.warning("outbox: reading the next due time failed", metadata: ["error": "\(error)"])
        }
        if deadline > now { sleep(milliseconds: deadline - now) }
    }

    /// Sleeps until the time passes, `notify()` or `stop()`.
    private func sleep(milliseconds: Int64) {
        let until = Date(timeIntervalSinceNow: Double(milliseconds) / 1000)
        condition.lock()
        while !wakeRequested, state == .running, condition.wait(until: until) {}
        condition.unlock()
    }

    /// Keeps the log bounded and deletes payloads whose devices were all deleted by others.
    private func housekeeping() {
        do {
            let trimmed = try store.trimDeliveryLog(keeping: configuration.deliveryLogLimit)
            let payloads = try store.deleteUnusedPayloads()
            if trimmed > 0 || payloads > 0 {
                logger.debug(
                    "outbox housekeeping", metadata: ["logTrimmed": "\(trimmed)", "payloadsDeleted": "\(payloads)"])
            }
        } catch {
            logger.warning("outbox housekeeping failed", metadata: ["error": "\(error)"])
        }
    }

    /// One summary line per batch; a line per push only for those an operator should hear
    /// about, with the token shortened.
    private func report(_ outcomes: [(delivery: OutboxDelivery, outcome: OutboxOutcome)]) {
        var counts = (delivered: 0, retried: 0, dead: 0, deadTokens: 0)
        var firstDead: (delivery: OutboxDelivery, error: String)?
        for (delivery, outcome) in outcomes {
            switch outcome {
            case .delivered: counts.delivered += 1
            case .retry: counts.retried += 1
            case .dead(let error):
                counts.dead += 1
                if firstDead == nil { firstDead = (delivery, error) }
                logger.info("outbox push dead-lettered", metadata: metadata(delivery, ["error": "\(error)"]))
            case .deadToken(let reason, _):
                counts.deadTokens += 1
                logger.info(
                    "outbox: dead token, device pruned unless re-registered since",
                    metadata: metadata(delivery, ["reason": "\(reason)"]))
            }
        }
        if let firstDead {
            deadLetters.failed(
                "the outbox", reason: "\(firstDead.error) (app \(firstDead.delivery.notification.appID))",
                count: counts.dead, metadata: metadata(firstDead.delivery, [:]))
        } else if counts.delivered > 0 {
            deadLetters.succeeded("the outbox")
        }
        logger.debug(
            "outbox batch",
            metadata: [
                "rows": "\(outcomes.count)", "delivered": "\(counts.delivered)", "retried": "\(counts.retried)",
                "dead": "\(counts.dead)", "deadTokens": "\(counts.deadTokens)",
            ])
    }

    private func metadata(_ delivery: OutboxDelivery, _ extra: Logger.Metadata) -> Logger.Metadata {
        var metadata = extra
        metadata["app"] = "\(delivery.notification.appID)"
        // DeviceToken's description is shortened: never a whole token in a log.
        metadata["token"] = "\(delivery.notification.token)"
        metadata["device"] = "\(delivery.notification.deviceID.map(String.init) ?? "-")"
        metadata["source"] = "\(delivery.source)"
        metadata["attempts"] = "\(delivery.attempts)"
        return metadata
    }
}

extension OutboxWorker: Service {
    public var serviceName: String { "outbox worker" }
}
