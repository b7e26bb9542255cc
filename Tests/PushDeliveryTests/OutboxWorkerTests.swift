import PushTesting
import Foundation
import Logging
import PushCore
import XCTest

@testable import PushDelivery

/// The worker against an in-memory outbox with the SQL store's semantics and a scripted
/// deliverer: what becomes of each result, retries in time, dead letters, pruning, crashes.
final class OutboxWorkerTests: XCTestCase {
    private var clock: OutboxTestClock!
    private var store: InMemoryOutboxStore!
    private var deliverer: ScriptedDeliverer!

    private let start: Int64 = 1_800_000_000_000
    private let message = OutboxMessage(source: "beams:publish", apns: APNsMessage(payload: Array(#"{"aps":{}}"#.utf8)))

    override func setUp() {
        super.setUp()
        clock = OutboxTestClock(start)
        store = InMemoryOutboxStore(clock: clock)
        deliverer = ScriptedDeliverer()
    }

    /// Jitter at its ceiling, so that retry times are known: 1 s, 2 s, 4 s, …
    private func makeWorker(
        batchSize: Int = 1_000, maxAttempts: Int = 10, lease: Int64 = 30_000, idlePoll: Int64 = 5_000,
        releaseClaimsOnStart: OutboxWorkerConfiguration.ClaimRelease = .everyNode, node: String = "node-a"
    ) -> OutboxWorker {
        let configuration = OutboxWorkerConfiguration(
            batchSize: batchSize, leaseMilliseconds: lease, idlePollMilliseconds: idlePoll,
            releaseClaimsOnStart: releaseClaimsOnStart, nodeID: node,
            retry: RetryPolicy(maxAttempts: maxAttempts, random: { $0.upperBound }))
        return OutboxWorker(
            store: store, deliverer: deliverer, configuration: configuration, clock: { [clock] in clock!.now },
            logger: Fixtures.logger)
    }

    func testDeliversDueRowsAndFinishesThem() throws {
        let devices = store.addDevices(3)
        XCTAssertEqual(try store.enqueue(message, deviceIDs: devices), 3)
        let worker = makeWorker()

        XCTAssertEqual(try worker.runOnce(), 3)
        XCTAssertEqual(try worker.runOnce(), 0, "nothing left")
        XCTAssertEqual(deliverer.batches.count, 1, "one batch, one deliver call")
        let sent = deliverer.batches[0]
        XCTAssertEqual(sent.map(\.deviceID), devices)
        XCTAssertEqual(sent.map(\.token), devices.map(InMemoryOutboxStore.token))
        XCTAssertEqual(sent.map(\.apns), Array(repeating: message.apns, count: 3))
        XCTAssertEqual(try store.pendingCount(), 0)
        XCTAssertEqual(store.log.map(\.kind), [.delivered, .delivered, .delivered])
    }

    func testBatchesHoldAtMostTheBatchSize() throws {
        _ = try store.enqueue(message, deviceIDs: store.addDevices(5))
        let worker = makeWorker(batchSize: 2)
        XCTAssertEqual(try [worker.runOnce(), worker.runOnce(), worker.runOnce(), worker.runOnce()], [2, 2, 1, 0])
        XCTAssertEqual(deliverer.batches.map(\.count), [2, 2, 1])
    }

    func testARetryComesBackAtItsTimeAndIsDelivered() throws {
        let devices = store.addDevices(2)
        deliverer.script(devices[0], [.retryLater(reason: "ServiceUnavailable", afterSeconds: nil)])
        _ = try store.enqueue(message, deviceIDs: devices)
        let worker = makeWorker()

        XCTAssertEqual(try worker.runOnce(), 2)
        XCTAssertEqual(try store.pendingCount(), 1)
        XCTAssertEqual(try store.nextDueAt(), start + 1_000, "first backoff: up to a second")
        XCTAssertEqual(try worker.runOnce(), 0, "not yet due")
        clock.advance(by: 1_000)
        XCTAssertEqual(try worker.runOnce(), 1)
        XCTAssertEqual(try store.pendingCount(), 0)
        XCTAssertEqual(deliverer.sends(to: devices[0]), 2)
        XCTAssertEqual(store.log.map(\.kind), [.retry, .delivered, .delivered])
    }

    func testRetryAfterIsHonoured() throws {
        let devices = store.addDevices(1)
        deliverer.script(devices[0], [.retryLater(reason: "TooManyRequests", afterSeconds: 120)])
        _ = try store.enqueue(message, deviceIDs: devices)
        try makeWorker().runOnce()
        XCTAssertEqual(try store.nextDueAt(), start + 120_000)
    }

    func testRetriesUntilTheLimitThenDeadLetters() throws {
        let devices = store.addDevices(1)
        deliverer.script(
            devices[0], Array(repeating: .retryLater(reason: "InternalServerError", afterSeconds: nil), count: 10))
        _ = try store.enqueue(message, deviceIDs: devices)
        let worker = makeWorker(maxAttempts: 3)

        for _ in 0..<10 {
            try worker.runOnce()
            clock.advance(by: 60_000)
        }
        XCTAssertEqual(deliverer.sends(to: devices[0]), 3, "three attempts, then no more")
        XCTAssertEqual(try store.pendingCount(), 0)
        let letters = try store.deadLetters(limit: 10)
        XCTAssertEqual(letters.map(\.attempts), [3])
        XCTAssertEqual(letters.map(\.lastError), ["gave up after 3 attempts: InternalServerError"])
        XCTAssertEqual(store.log.map(\.kind), [.retry, .retry, .dead])
    }

    func testARejectedPushIsDeadLetteredAtOnce() throws {
        let devices = store.addDevices(1)
        deliverer.script(devices[0], [.rejected(status: 400, reason: "BadTopic")])
        _ = try store.enqueue(message, deviceIDs: devices)
        try makeWorker().runOnce()
        XCTAssertEqual(try store.deadLetters(limit: 10).map(\.lastError), ["rejected (400): BadTopic"])
        XCTAssertEqual(store.devices.count, 1, "a refused push keeps the token")
    }

    /// Two publishes queued for a dead device: pruned once, both pushes gone, others delivered.
    func testADeadTokenPrunesTheDeviceOnce() throws {
        let devices = store.addDevices(2)
        deliverer.script(devices[0], [.deadToken(reason: "Unregistered", since: start - 10_000)])
        _ = try store.enqueue(message, deviceIDs: devices)
        _ = try store.enqueue(message, deviceIDs: [devices[0]])
        let worker = makeWorker(batchSize: 2)

        XCTAssertEqual(try worker.runOnce(), 2)
        XCTAssertEqual(store.prunes, [devices[0]], "pruned, once")
        XCTAssertEqual(try store.pendingCount(), 0, "its other queued push went with it")
        XCTAssertEqual(try worker.runOnce(), 0)
        XCTAssertEqual(deliverer.sends(to: devices[0]), 1)
        XCTAssertEqual(Array(store.devices.keys), [devices[1]])
        XCTAssertEqual(store.log.map(\.kind), [.pruned, .delivered])
    }

    /// kill -9 mid fan-out: the first worker claimed a batch and died before completing it.
    /// A new worker delivers the unclaimed rows at once and the lost batch when its lease
    /// ends: every push at least once.
    func testACrashedWorkersRowsAreDeliveredAfterTheLease() throws {
        let devices = store.addDevices(5)
        _ = try store.enqueue(message, deviceIDs: devices)
        let lost = try store.claimDue(limit: 3, now: clock.now, lease: 30_000)
        XCTAssertEqual(lost.count, 3)
        // The first worker is gone: nothing completes `lost`.

        let worker = makeWorker(lease: 30_000)
        XCTAssertEqual(try worker.runOnce(), 2, "the rows nobody held")
        XCTAssertEqual(try worker.runOnce(), 0, "the lost batch is still leased")
        clock.advance(by: 30_000)
        XCTAssertEqual(try worker.runOnce(), 3, "the lease ran out")
        XCTAssertEqual(try store.pendingCount(), 0)
        XCTAssertEqual(Set(deliverer.batches.joined().compactMap(\.deviceID)), Set(devices))
        XCTAssertEqual(deliverer.batches.joined().count, 5, "sent once each: the dead worker sent none")
    }

    /// A row whose deliveries kept killing the process has its attempts used up by claims
    /// alone: it is dead-lettered without being sent again.
    func testARowClaimedTooOftenIsDeadLetteredUnsent() throws {
        let devices = store.addDevices(1)
        _ = try store.enqueue(message, deviceIDs: devices)
        for _ in 0..<3 {
            XCTAssertEqual(try store.claimDue(limit: 1, now: clock.now, lease: 1_000).count, 1)
            clock.advance(by: 1_000)
        }
        XCTAssertEqual(try makeWorker(maxAttempts: 3).runOnce(), 1)
        XCTAssertEqual(deliverer.batches, [], "not sent a fourth time")
        XCTAssertEqual(try store.deadLetters(limit: 1).map(\.lastError), ["gave up: 3 attempts got no answer"])
    }

    func testADelivererAnsweringTooFewResultsLosesNothing() throws {
        deliverer.dropsLastResult = true
        _ = try store.enqueue(message, deviceIDs: store.addDevices(2))
        try makeWorker().runOnce()
        XCTAssertEqual(try store.pendingCount(), 1, "the push without a result is retried")
        XCTAssertEqual(store.log.map(\.kind), [.delivered, .retry])
    }

    // MARK: The thread

    func testTheThreadDeliversWhenNotifiedAndStopsWhileIdle() throws {
        clock.followsRealTime = true
        let worker = makeWorker(idlePoll: 60_000)
        worker.start()
        // Let it find nothing and fall asleep for the long idle poll.
        Thread.sleep(forTimeInterval: 0.1)
        _ = try store.enqueue(message, deviceIDs: store.addDevices(3))
        worker.notify()
        XCTAssertTrue(waitUntil { (try? self.store.pendingCount()) == 0 }, "notify woke the worker")

        let stopping = Date()
        worker.stop()
        // Well short of the 60 s idle poll it was sleeping in; how short is the machine's load.
        XCTAssertLessThan(Date().timeIntervalSince(stopping), 30, "stop interrupts the idle sleep")
        worker.stop()  // twice is harmless
        XCTAssertEqual(deliverer.batches.joined().count, 3)
    }

    func testTheThreadSleepsUntilARetryIsDue() throws {
        clock.followsRealTime = true
        let devices = store.addDevices(1)
        deliverer.script(devices[0], [.retryLater(reason: "ServiceUnavailable", afterSeconds: nil)])
        _ = try store.enqueue(message, deviceIDs: devices)
        let worker = makeWorker(idlePoll: 60_000)
        worker.start()
        defer { worker.stop() }
        // The retry is due within a second (jitter at its ceiling): no notify needed.
        XCTAssertTrue(waitUntil(seconds: 5) { self.deliverer.sends(to: devices[0]) == 2 })
        XCTAssertTrue(waitUntil { (try? self.store.pendingCount()) == 0 })
    }

    func testStartingTakesBackClaimsOfADeadPredecessor() throws {
        clock.followsRealTime = true
        _ = try store.enqueue(message, deviceIDs: store.addDevices(2))
        _ = try store.claimDue(limit: 2, now: clock.now, lease: 3_600_000)
        let worker = makeWorker()
        worker.start()
        defer { worker.stop() }
        XCTAssertTrue(waitUntil { (try? self.store.pendingCount()) == 0 }, "not an hour later")
    }

    /// Several nodes share the outbox: a node starting again takes back the rows its
    /// predecessor under the same id died holding, and leaves a live node's alone.
    func testStartingTakesBackOnlyThisNodesClaims() throws {
        clock.followsRealTime = true
        let devices = store.addDevices(4)
        _ = try store.enqueue(message, deviceIDs: devices)
        _ = try store.claimDue(limit: 2, now: clock.now, lease: 3_600_000, node: "node-a")
        _ = try store.claimDue(limit: 2, now: clock.now, lease: 3_600_000, node: "node-b")
        let worker = makeWorker(releaseClaimsOnStart: .thisNode, node: "node-a")
        worker.start()
        XCTAssertTrue(waitUntil { self.deliverer.batches.joined().count == 2 }, "node-a's rows, not an hour later")
        worker.stop()
        XCTAssertEqual(Set(deliverer.batches.joined().compactMap(\.deviceID)), Set(devices[0..<2]))
        XCTAssertEqual(try store.claims().map(\.node), ["node-b"], "the live node keeps its rows")
        XCTAssertEqual(try store.pendingCount(), 2)
    }

    /// Pushes given up reach the log at warning once per episode, not once per push: the
    /// first dead letter, and the first batch delivered without one.
    func testDeadLettersAreLoggedOncePerEpisode() throws {
        let (logger, log) = RecordingLogHandler.logger()
        let devices = store.addDevices(3)
        for device in devices { deliverer.script(device, [.rejected(status: 400, reason: "BadTopic")]) }
        _ = try store.enqueue(message, deviceIDs: devices)
        let worker = OutboxWorker(
            store: store, deliverer: deliverer, clock: { [clock] in clock!.now }, logger: logger)
        XCTAssertEqual(try worker.runOnce(), 3)
        let warnings = { log.all.filter { $0.level >= .warning } }
        XCTAssertEqual(
            warnings().map(\.message),
            [
                "outbox pushes given up as dead letters: the outbox: rejected (400): BadTopic (app com.example.app) (logged once until it recovers)"
            ])
        XCTAssertEqual(warnings().first?.metadata["app"], "com.example.app")

        _ = try store.enqueue(message, deviceIDs: store.addDevices(2))
        XCTAssertEqual(try worker.runOnce(), 2)
        XCTAssertEqual(
            warnings().last?.message, "outbox pushes given up as dead letters: the outbox recovered after 3 failure(s)")
        XCTAssertEqual(warnings().count, 2)
    }

    func testStopLetsTheBatchInHandFinish() throws {
        clock.followsRealTime = true
        deliverer.delay = 0.3
        _ = try store.enqueue(message, deviceIDs: store.addDevices(2))
        let worker = makeWorker()
        worker.start()
        XCTAssertTrue(waitUntil { self.deliverer.started > 0 })
        worker.stop()
        XCTAssertEqual(try store.pendingCount(), 0, "the batch being delivered was completed")
    }

    /// The thread keeps two batches going: the next is claimed and sent while the last one
    /// is still with the deliverer; none is sent twice.
    func testTheThreadOverlapsTwoBatches() throws {
        clock.followsRealTime = true
        deliverer.delay = 0.1
        let devices = store.addDevices(10)
        _ = try store.enqueue(message, deviceIDs: devices)
        let worker = makeWorker(batchSize: 2)
        worker.start()
        XCTAssertTrue(waitUntil { (try? self.store.pendingCount()) == 0 })
        worker.stop()
        XCTAssertEqual(deliverer.batches.map(\.count), [2, 2, 2, 2, 2])
        XCTAssertEqual(deliverer.batches.joined().compactMap(\.deviceID).sorted(), devices, "each once")
        XCTAssertEqual(deliverer.mostConcurrent, 2)
    }

    private func waitUntil(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return condition()
    }
}
