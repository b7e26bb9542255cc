import PushTesting
import Foundation
import MockUpstream
import PushCore
import PushDelivery
@testable import PushStore
import XCTest

/// Several nodes draining one outbox on PostgreSQL, in one process: each "node" has its own
/// store (its own connections), its own worker under its own node id, and the real delivery
/// engine towards the mock APNs. Skipped without `PUSHGATE_TEST_DATABASE_URL`.
final class OutboxNodesTests: XCTestCase, RunsOnPostgreSQL {
    private static let app = "com.example.voip"
    private var database: SharedDatabase!
    private var apns: MockAPNs!
    private var engine: CurlEngine!
    private var workers: [OutboxWorker] = []
    private var listeners: [OutboxWakeListener] = []

    override func setUpWithError() throws {
        database = try SharedDatabase(requirePostgreSQL: true)
        apns = try Integration.mockAPNs { $0.providerTokenUpdateInterval = .zero }
        engine = try Integration.engine()
        try database.makeStore().addApp(Fixtures.apnsTokenApp(id: Self.app), replacing: false)
    }

    override func tearDown() {
        listeners.forEach { $0.stop() }
        workers.forEach { $0.stop() }
        engine?.shutdown()
        apns?.shutdown()
        database?.drop()
        super.tearDown()
    }

    private let message = OutboxMessage(
        source: "beams:publish", apns: APNsMessage(payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))

    /// A node: its store, and a worker delivering through the engine to the mock APNs.
    private func startNode(
        _ node: String, store: any SharedDatabase.NodeStore, idlePoll: Int64 = 200, lease: Int64 = 60_000,
        batchSize: Int = 50
    ) -> OutboxWorker {
        let pipeline = DeliveryPipeline(
            catalog: store, transport: engine,
            configuration: DeliveryConfiguration(
                apns: APNsEndpoints(production: apns.baseURL, sandbox: apns.baseURL), fcmURL: "https://127.0.0.1:1"),
            providerTokens: ProviderTokenCache(archive: store, logger: Fixtures.logger),
            accessTokens: AccessTokenCache(transport: engine, logger: Fixtures.logger), events: IgnoredDeliveryEvents(),
            logger: Fixtures.logger)
        let worker = OutboxWorker(
            store: store, deliverer: pipeline,
            configuration: OutboxWorkerConfiguration(
                batchSize: batchSize, leaseMilliseconds: lease, idlePollMilliseconds: idlePoll,
                releaseClaimsOnStart: .thisNode, nodeID: node),
            logger: Fixtures.logger)
        workers.append(worker)
        worker.start()
        return worker
    }

    /// The devices' tokens as the mock records them (hex).
    private func tokens(of count: Int) -> Set<String> {
        Set((1...count).map { DeviceToken(bytes: Self.tokenBytes($0)).hex })
    }

    private static func tokenBytes(_ number: Int) -> [UInt8] {
        (0..<32).map { UInt8(truncatingIfNeeded: number >> (8 * (31 - $0))) }
    }

    private func waitUntil(seconds: Double = 120, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return try condition()
    }

    func testTwoNodesDrainOneFanOutDeliveringEveryDeviceOnce() throws {
        let count = 400
        let devices = try database.addDevices(count: count, app: Self.app)
        let storeA = try database.makeStore()
        let storeB = try database.makeStore()
        let workerA = startNode("node-a", store: storeA)
        let workerB = startNode("node-b", store: storeB)
        XCTAssertEqual(try storeA.enqueue(message, deviceIDs: devices), count)
        workerA.notify()
        workerB.notify()

        XCTAssertTrue(try waitUntil { try storeB.pendingCount() == 0 }, "both nodes drained the fan-out")
        workerA.stop()
        workerB.stop()
        let received = apns.requests.compactMap(\.deviceToken)
        XCTAssertEqual(received.count, count, "no push sent twice")
        XCTAssertEqual(Set(received), tokens(of: count), "every device once")
        XCTAssertEqual(try storeA.deadLetters(limit: 10), [])
        XCTAssertEqual(try storeA.claims(), [], "nothing left leased")
    }

    /// A publish to interests larger than its first step: both nodes take its further steps
    /// (one at a time, the fan-out's row locked) and deliver, and each device gets it once,
    /// including those subscribed through both interests.
    func testTwoNodesQueueAPublishInStepsAndDeliverEachDeviceOnce() throws {
        let count = 300
        _ = try database.addDevices(count: count, app: Self.app)
        try database.execute(
            """
            INSERT INTO beams_clients (id, app_id, device_id, created_at, updated_at)
            SELECT 'client-' || lpad(CAST(id AS text), 4, '0'), app_id, id, 0, 0 FROM devices
            """)
        try database.execute("INSERT INTO beams_interests (client_id, interest) SELECT id, 'news' FROM beams_clients")
        try database.execute(
            "INSERT INTO beams_interests (client_id, interest) SELECT id, 'sports' FROM beams_clients WHERE device_id % 3 = 0")
        let publisher = PostgreSQLStore(configuration: try XCTUnwrap(database.postgreSQLConfiguration))
        let fanOut = try publisher.publishToInterests(
            appIDs: [try XCTUnwrap(AppID(Self.app))], interests: ["sports", "news"], message: message, firstStep: 20)
        XCTAssertEqual(fanOut, QueuedFanOut(queued: 20, continues: true))
        let storeA = try database.makeStore()
        let storeB = try database.makeStore()
        // Polling hourly, and no listener: a worker that slept while a publish was still being
        // queued would not finish within the test. Each step fills a batch of 10 with rows
        // claimed as they are queued, so every claim of due rows after the publish's 20 comes
        // back empty, which must not put the worker to sleep.
        _ = startNode("node-a", store: storeA, idlePoll: 3_600_000, batchSize: 10)
        _ = startNode("node-b", store: storeB, idlePoll: 3_600_000, batchSize: 10)

        XCTAssertTrue(
            try waitUntil { try storeB.fanOutsInProgress() == 0 && storeB.pendingCount() == 0 },
            "both nodes queued and drained the publish")
        XCTAssertTrue(apns.waitForRequests(count: count, timeout: .seconds(60)))
        let received = apns.requests.compactMap(\.deviceToken)
        XCTAssertEqual(received.count, count, "no push sent twice")
        XCTAssertEqual(Set(received), tokens(of: count), "every device once")
        XCTAssertEqual(try storeA.deadLetters(limit: 10), [])
    }

    /// A node dies holding a claim (it never completes it): the other node delivers the rest
    /// at once and the dead node's rows once their lease runs out, each once.
    func testTheOtherNodeTakesADeadNodesRowsAfterTheLease() throws {
        let count = 20
        let devices = try database.addDevices(count: count, app: Self.app)
        let storeA = try database.makeStore()
        XCTAssertEqual(try storeA.enqueue(message, deviceIDs: devices), count)
        let lease: Int64 = 3_000
        let held = try storeA.claimDue(limit: 8, now: OutboxWorker.systemClock(), lease: lease, node: "node-a")
        XCTAssertEqual(held.count, 8)
        // node-a is gone; node-b starts and does not take node-a's live-looking claims at start.
        let storeB = try database.makeStore()
        _ = startNode("node-b", store: storeB, lease: lease)
        XCTAssertTrue(try waitUntil { apns.requests.count >= count - 8 }, "the unclaimed rows at once")
        XCTAssertTrue(try waitUntil { try storeB.pendingCount() == 0 }, "node-a's rows after its lease")
        let received = apns.requests.compactMap(\.deviceToken)
        XCTAssertEqual(received.count, count, "nothing sent twice")
        XCTAssertEqual(Set(received), tokens(of: count))
    }

    /// A worker that polls once an hour delivers a push published through another node's
    /// store: the publish's NOTIFY reached this node's listener.
    func testAPublishOnAnotherNodeWakesAWorkerThatPollsHourly() throws {
        let devices = try database.addDevices(count: 3, app: Self.app)
        let storeB = try database.makeStore()
        let worker = startNode("node-b", store: storeB, idlePoll: 3_600_000)
        let listener = OutboxWakeListener(
            configuration: try XCTUnwrap(database.postgreSQLConfiguration), onWake: { worker.notify() },
            onError: { XCTFail("listening failed: \($0)") })
        listeners.append(listener)
        listener.start()
        XCTAssertTrue(listener.waitUntilListening(seconds: 60))

        let storeA = try database.makeStore()
        XCTAssertEqual(try storeA.enqueue(message, deviceIDs: devices), 3)
        XCTAssertTrue(apns.waitForRequests(count: 3, timeout: .seconds(120)), "delivered without waiting an hour")
        XCTAssertGreaterThanOrEqual(listener.notificationsReceived, 1, "woken by the publish's notification")
    }
}
