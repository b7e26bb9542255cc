import Foundation
import Logging
import MetricsTestKit
import PushCore
import PushTesting
import XCTest

@testable import PushDelivery

/// The Deliverer the dialects and the outbox use: app lookup, routing by platform, batch order,
/// and, for a dialect's sends, pruning and recording stored devices.
final class DeliveryPipelineTests: XCTestCase {
    private let transport = FakeTransport()
    private let store = InMemoryTokenStore()
    private let clock = ManualClock()
    private var pipeline: DeliveryPipeline!

    override func setUpWithError() throws {
        try store.addApp(Fixtures.apnsTokenApp(), replacing: false)
        try store.addApp(Fixtures.fcmApp(), replacing: false)
        transport.preload("oauth.test", status: 200, body: #"{"access_token":"t","expires_in":3600}"#)
        pipeline = makePipeline(catalog: store)
    }

    private func makePipeline(catalog: AppCatalog) -> DeliveryPipeline {
        DeliveryPipeline(
            catalog: catalog, transport: transport,
            configuration: DeliveryConfiguration(apns: Fixtures.endpoints, fcmURL: "https://fcm.test"),
            providerTokens: ProviderTokenCache(clock: clock.unixClock),
            accessTokens: AccessTokenCache(transport: transport, clock: clock.unixClock, logger: Fixtures.logger),
            clock: clock.unixClock, logger: Fixtures.logger)
    }

    func testAMixedBatchIsAnsweredInOrder() {
        transport.preload("apns.test", status: 200, headers: [HTTPHeader("apns-id", "a1")], delaySeconds: 0.2)
        transport.preload("fcm.test", status: 404, body: "")
        let results = pipeline.deliver([
            Fixtures.apnsPush(), Fixtures.fcmPush(), Fixtures.apnsPush(app: "com.example.nowhere"), Fixtures.apnsPush(),
        ])
        XCTAssertEqual(results, [
            .delivered(id: "a1"), .deadToken(reason: "HTTP 404", since: nil),
            .rejected(status: 400, reason: "unknown app com.example.nowhere"), .delivered(id: "a1"),
        ])
        XCTAssertEqual(transport.requests(containing: "apns.test").count, 2)
    }

    func testTheBatchIsSentConcurrently() {
        transport.preload("apns.test", status: 200)
        // No answer until all 20 are sent: a pipeline that waited for each answer would stall
        // until the gate's time-out, however fast the machine.
        transport.holdReplies(untilRequests: 20)
        let results = pipeline.deliver(Array(repeating: Fixtures.apnsPush(), count: 20))
        XCTAssertEqual(results.count, 20)
        XCTAssertTrue(transport.openedByRequests, "the pipeline waited for an answer before sending the rest")
    }

    func testAnEmptyBatch() {
        XCTAssertEqual(pipeline.deliver([]), [])
    }

    func testAReplacedKeyTakesEffectOnTheNextPush() throws {
        transport.preload("apns.test", status: 200)
        _ = pipeline.deliver([Fixtures.apnsPush()])
        try store.addApp(Fixtures.apnsTokenApp(key: TestKeys.otherAPNsKey), replacing: true)
        _ = pipeline.deliver([Fixtures.apnsPush()])
        let bearers = transport.requests(containing: "apns.test").compactMap { $0.header("authorization") }
        XCTAssertEqual(bearers.count, 2)
        XCTAssertNotEqual(bearers[0], bearers[1])
    }

    func testACatalogFailureIsRetriedLater() {
        pipeline = makePipeline(catalog: FailingCatalog())
        guard case .retryLater(let reason, nil) = pipeline.deliver([Fixtures.apnsPush()])[0] else { return XCTFail() }
        XCTAssertTrue(reason.hasPrefix("app catalog unavailable"), reason)
    }

    /// The app a dialect found travels with its push: the pipeline sends with it (here an app
    /// the catalog does not even hold) and reads the catalog only for pushes that name an id.
    func testAnAppThePushCarriesIsNotLookedUpAgain() {
        let catalog = CountingCatalog(store)
        pipeline = makePipeline(catalog: catalog)
        transport.preload("apns.test", status: 200, headers: [HTTPHeader("apns-id", "a1")])
        let carried = PushCore.Notification(
            app: Fixtures.apnsTokenApp(id: "com.example.carried"), token: Fixtures.apnsToken,
            apns: Fixtures.apnsPush().apns)

        XCTAssertEqual(pipeline.deliver([carried, carried]), [.delivered(id: "a1"), .delivered(id: "a1")])
        XCTAssertEqual(
            awaitResult { pipeline.deliver([carried], logger: Fixtures.logger, home: Immediately(), completion: $0) },
            [.delivered(id: "a1")])
        XCTAssertEqual(catalog.appsRead, [], "no push was looked up")

        XCTAssertEqual(
            pipeline.deliver([Fixtures.apnsPush(), carried, Fixtures.apnsPush()]),
            [.delivered(id: "a1"), .delivered(id: "a1"), .delivered(id: "a1")])
        XCTAssertEqual(catalog.appsRead, [AppID("com.example.voip")!], "once for the batch's pushes that name it")
    }

    func testTheNonBlockingFormAnswersOnHome() {
        transport.preload("apns.test", status: 200, headers: [HTTPHeader("apns-id", "x")])
        let home = Immediately()
        let push = Fixtures.apnsPush()
        XCTAssertEqual(
            awaitResult { pipeline.deliver([push], logger: Fixtures.logger, home: home, completion: $0) },
            [.delivered(id: "x")])
        XCTAssertEqual(home.resumed, 1)
    }

    // MARK: A dialect's sends

    private func push(_ deviceID: Int64?) -> PushCore.Notification {
        PushCore.Notification(app: Fixtures.apnsTokenApp(), token: Fixtures.apnsToken, deviceID: deviceID)
    }

    private func dialectPipeline(answering results: [DeliveryResult], devices: StoredDevices) -> DeliveryPipeline {
        DeliveryPipeline(
            catalog: store, clients: [ScriptedClient(results)], clock: UnixClock { 1_700_000_123 },
            logger: Fixtures.logger
        ).sending(as: "pnm2", devices: devices)
    }

    func testPrunesOnlyDeadTokensOfStoredDevicesAndKeepsTheResults() {
        let results: [DeliveryResult] = [
            .delivered(id: "a"), .deadToken(reason: "Unregistered", since: 1_700_000_000_000),
            .deadToken(reason: "BadDeviceToken", since: nil), .rejected(status: 400, reason: "BadTopic"),
            .retryLater(reason: "503", afterSeconds: 5),
        ]
        let devices = StoredDevices()
        let answered = dialectPipeline(answering: results, devices: devices).deliver(
            [push(1), push(2), push(nil), push(4), push(5)])
        XCTAssertEqual(answered, results)
        XCTAssertEqual(devices.pruned.map(\.0), [2], "only the dead token of a stored device")
        XCTAssertEqual(devices.pruned.first?.1, 1_700_000_000_000, "APNs' timestamp is passed on")
    }

    /// The prune runs on the caller's home, before its completion.
    func testTheNonBlockingFormPrunesBeforeAnswering() {
        let devices = StoredDevices()
        let home = Immediately()
        let pipeline = dialectPipeline(answering: [.deadToken(reason: "Unregistered", since: nil)], devices: devices)
        let answer = awaitResult { done in
            pipeline.deliver([push(6)], logger: Fixtures.logger, home: home) { done(($0, devices.pruned.map(\.0))) }
        }
        XCTAssertEqual(answer?.0, [.deadToken(reason: "Unregistered", since: nil)])
        XCTAssertEqual(answer?.1, [6])
        XCTAssertEqual(home.resumed, 1)
    }

    /// A dialect's pushes count under its name and their app's platform; the answers the
    /// clients got count whoever sent them; the bare pipeline (the outbox's) counts no push.
    func testADialectsPushesAndEveryUpstreamAnswerAreCounted() throws {
        let counted = TestMetrics()
        let gone = FakeTransport.Reply.response(410, body: #"{"reason":"Unregistered"}"#)
        transport.preload("apns.test", .response(200), .response(200), gone)
        let pipeline = DeliveryPipeline(
            catalog: store, transport: transport,
            configuration: DeliveryConfiguration(apns: Fixtures.endpoints, fcmURL: "https://fcm.test"),
            providerTokens: ProviderTokenCache(clock: clock.unixClock),
            accessTokens: AccessTokenCache(transport: transport, clock: clock.unixClock, logger: Fixtures.logger),
            clock: clock.unixClock, metrics: DeliveryMetrics(factory: counted), logger: Fixtures.logger)
        let carried = PushCore.Notification(
            app: Fixtures.apnsTokenApp(), token: Fixtures.apnsToken, apns: Fixtures.apnsPush().apns)

        _ = pipeline.deliver([carried])
        XCTAssertThrowsError(try counted.expectCounter("pushgate_pushes_total", Self.push("delivered")))
        XCTAssertEqual(
            try counted.expectCounter(
                "pushgate_upstream_answers_total", [("provider", "apns"), ("status", "200"), ("reason", "ok")]
            ).totalValue, 1)

        let matrix = pipeline.sending(as: "matrix", devices: StoredDevices())
        XCTAssertEqual(
            matrix.deliver([carried, carried, Fixtures.apnsPush(app: "com.example.nowhere")]).map(PushResultLabel.init),
            [.delivered, .deadToken, .rejected])
        XCTAssertEqual(try counted.expectCounter("pushgate_pushes_total", Self.push("delivered")).totalValue, 1)
        XCTAssertEqual(try counted.expectCounter("pushgate_pushes_total", Self.push("dead_token")).totalValue, 1)
        XCTAssertEqual(
            try counted.expectCounter(
                "pushgate_pushes_total", [("provider", "unknown"), ("dialect", "matrix"), ("result", "rejected")]
            ).totalValue, 1)
        XCTAssertEqual(
            try counted.expectCounter(
                "pushgate_tokens_pruned_total", [("provider", "apns"), ("reason", "Unregistered")]
            ).totalValue, 1)
        XCTAssertEqual(
            try counted.expectTimer("pushgate_upstream_request_duration_seconds", [("provider", "apns")]).values.count,
            3)
    }

    private static func push(_ result: String) -> [(String, String)] {
        [("provider", "apns"), ("dialect", "matrix"), ("result", result)]
    }

    func testAFailedPruneLeavesTheResultAlone() {
        let devices = StoredDevices()
        devices.failing = true
        let pipeline = dialectPipeline(answering: [.deadToken(reason: "Unregistered", since: nil)], devices: devices)
        XCTAssertEqual(pipeline.deliver([push(9)]), [.deadToken(reason: "Unregistered", since: nil)])
    }

    func testADialectsSendsRecordEachStoredDevicesOutcome() {
        let devices = StoredDevices()
        let pipeline = dialectPipeline(
            answering: [
                .delivered(id: "x"), .rejected(status: 400, reason: "BadTopic"), .delivered(id: nil),
                .retryLater(reason: "ServiceUnavailable", afterSeconds: nil),
            ], devices: devices)
        _ = pipeline.deliver([push(1), push(2), push(nil), push(4)])
        XCTAssertEqual(devices.outcomes.map(\.0), [1, 2, 4], "a push to an unstored token records nothing")
        XCTAssertEqual(
            devices.outcomes.map(\.1),
            ["delivered", "rejected (400): BadTopic", "not delivered, retrying: ServiceUnavailable"])
        XCTAssertEqual(devices.outcomes.map(\.2), [1_700_000_123, 1_700_000_123, 1_700_000_123])
    }
}

/// An APNs client answering each push with the next scripted result.
/// `@unchecked Sendable`: `results` is only touched with `lock` held.
private final class ScriptedClient: PlatformDeliverer, @unchecked Sendable {
    let platform = Platform.apns
    private let lock = NSLock()
    private var results: [DeliveryResult]

    init(_ results: [DeliveryResult]) {
        self.results = results
    }

    func send(
        _ notification: PushCore.Notification, app: RegisteredApp,
        completion: @escaping @Sendable (DeliveryResult) -> Void
    ) {
        completion(lock.withLock { results.removeFirst() })
    }
}

/// The store's devices as a dialect's pipeline sees them: what it pruned and recorded.
/// `@unchecked Sendable`: its state is only touched with `lock` held.
private final class StoredDevices: DevicePruning, DeviceDeliveryRecord, @unchecked Sendable {
    private let lock = NSLock()
    private var prunes: [(Int64, Int64?)] = []
    private var records: [(Int64, String, Int64)] = []
    private var fails = false
    var pruned: [(Int64, Int64?)] { lock.withLock { prunes } }
    var outcomes: [(Int64, String, Int64)] { lock.withLock { records } }
    var failing: Bool {
        get { lock.withLock { fails } }
        set { lock.withLock { fails = newValue } }
    }

    func pruneDevice(id: Int64, deadSince: Int64?) throws -> Bool {
        try lock.withLock {
            if fails { throw CocoaError(.fileWriteUnknown) }
            prunes.append((id, deadSince))
            return true
        }
    }

    func recordOutcomes(_ outcomes: [(deviceID: Int64, summary: String)], now: Int64) throws {
        lock.withLock { records += outcomes.map { ($0.deviceID, $0.summary, now) } }
    }

    func setSandbox(_ sandbox: Bool, deviceID: Int64) throws {}
}

/// A home that runs resumed work at once, on the thread that resumes it, and counts it.
private final class Immediately: HomeThread, @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var resumed: Int { lock.withLock { count } }

    func resume(_ work: @escaping @Sendable () -> Void) {
        lock.withLock { count += 1 }
        work()
    }
}

private struct FailingCatalog: AppCatalog {
    struct Down: Error {}
    func app(id: AppID) throws -> RegisteredApp? { throw Down() }
    func platform(of id: AppID) throws -> Platform? { throw Down() }
    func apps() throws -> [RegisteredApp] { throw Down() }
    func addApp(_ app: RegisteredApp, replacing: Bool) throws { throw Down() }
    func removeApp(id: AppID) throws -> Bool { throw Down() }
}
