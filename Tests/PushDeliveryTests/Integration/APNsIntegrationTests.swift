import Foundation
import MockUpstream
import PushCore
import PushCrypto
import PushTesting
import XCTest

@testable import PushDelivery

/// APNs delivery end to end: pipeline → APNsClient → CurlEngine → mock APNs over TLS.
final class APNsIntegrationTests: XCTestCase {
    private var production: MockAPNs!
    private var sandbox: MockAPNs!
    private var engine: CurlEngine!
    private var events: RecordingEvents!
    private let store = InMemoryTokenStore()
    private var providerTokens = ProviderTokenCache()

    override func setUpWithError() throws {
        production = try Integration.mockAPNs { $0.providerTokenUpdateInterval = .zero }
        sandbox = try Integration.mockAPNs(environment: .sandbox) { $0.providerTokenUpdateInterval = .zero }
        engine = try Integration.engine()
        events = RecordingEvents()
        try store.addApp(Fixtures.apnsTokenApp(), replacing: false)
    }

    override func tearDown() {
        engine.shutdown()
        production.shutdown()
        sandbox.shutdown()
    }

    private func pipeline() -> DeliveryPipeline {
        DeliveryPipeline(
            catalog: store, transport: engine,
            configuration: DeliveryConfiguration(
                apns: APNsEndpoints(production: production.baseURL, sandbox: sandbox.baseURL), fcmURL: "https://127.0.0.1:1"),
            providerTokens: providerTokens,
            accessTokens: AccessTokenCache(transport: engine, logger: Fixtures.logger), events: events,
            logger: Fixtures.logger)
    }

    private func deliver(_ push: PushCore.Notification = Fixtures.apnsPush()) -> DeliveryResult {
        pipeline().deliver([push])[0]
    }

    private var token: String { Fixtures.apnsToken.hex }

    func testDelivered() throws {
        guard case .delivered(let id?) = deliver(Fixtures.apnsPush(pushType: .voip, collapseID: "c1")) else {
            return XCTFail("not delivered")
        }
        let recorded = try XCTUnwrap(production.requests.first)
        XCTAssertEqual(recorded.headers["apns-id"], nil)
        XCTAssertEqual(recorded.auth, .providerToken(keyID: "KEY1234567"))
        XCTAssertEqual(recorded.deviceToken, token)
        XCTAssertEqual(recorded.headers["apns-push-type"], "voip")
        XCTAssertEqual(recorded.headers["apns-collapse-id"], "c1")
        XCTAssertEqual(recorded.bodyText, #"{"aps":{"alert":"hi"}}"#)
        XCTAssertFalse(id.isEmpty)
    }

    func testADeadTokenCarriesItsTimestamp() {
        production.setOutcome(.unregistered(since: 1_700_000_000_000), forToken: token)
        XCTAssertEqual(deliver(), .deadToken(reason: "Unregistered", since: 1_700_000_000_000))
    }

    func testATokenForAnotherTopicIsDead() {
        production.setOutcome(.onlyForTopic("com.other"), forToken: token)
        XCTAssertEqual(deliver(), .deadToken(reason: "DeviceTokenNotForTopic", since: nil))
    }

    func testARefusedPushIsRejected() throws {
        production.shutdown()
        production = try Integration.mockAPNs { $0.allowedTopics = ["com.allowed"] }
        guard case .rejected(let status, let reason) = deliver() else { return XCTFail() }
        XCTAssertEqual(status, 400)
        XCTAssertFalse(reason.isEmpty)
    }

    func testThrottlingAndServerErrorsAreRetriedLaterWithRetryAfter() {
        production.inject(.status(429, reason: "TooManyRequests", retryAfter: 7))
        XCTAssertEqual(deliver(), .retryLater(reason: "TooManyRequests", afterSeconds: 7))
        production.inject(.status(500, reason: "InternalServerError"))
        XCTAssertEqual(deliver(), .retryLater(reason: "InternalServerError", afterSeconds: nil))
        production.inject(.status(503, reason: "ServiceUnavailable", retryAfter: 30))
        XCTAssertEqual(deliver(), .retryLater(reason: "ServiceUnavailable", afterSeconds: 30))
        XCTAssertTrue(deliver().isDelivered)
    }

    func testAResetConnectionAndGoAwayAreRetriedLater() {
        for fault in [MockFault.resetConnection, .goAway] {
            // libcurl retries once by itself when a reused connection dies before any reply:
            // the fault meets the retry too.
            production.inject(fault, forNext: 2)
            guard case .retryLater(let reason, nil) = deliver() else { return XCTFail("\(fault)") }
            XCTAssertTrue(reason.hasPrefix("APNs connection lost"), reason)
            production.clearFaults()
            XCTAssertTrue(deliver().isDelivered, "a new connection after \(fault)")
        }
    }

    func testATimeOutIsRetriedLater() throws {
        engine.shutdown()
        engine = try Integration.engine(requestTimeout: 0.5)
        production.inject(.delay(.seconds(3)))
        guard case .retryLater(let reason, nil) = deliver() else { return XCTFail() }
        XCTAssertTrue(reason.hasPrefix("APNs timed out"), reason)
    }

    func testAnExpiredProviderTokenIsRenewedOnce() throws {
        production.shutdown()
        production = try Integration.mockAPNs {
            $0.providerTokenUpdateInterval = .zero
            $0.providerTokenLifetime = .seconds(2)
        }
        providerTokens = ProviderTokenCache(policy: .init(forcedRenewalFloorSeconds: 1))
        XCTAssertTrue(deliver().isDelivered)
        // `iat` is whole seconds: after 3.2 s the token is more than 2 s old for certain.
        Thread.sleep(forTimeInterval: 3.2)
        // Our cache still thinks the token young; the mock says it expired: renew, retry, deliver.
        XCTAssertTrue(deliver().isDelivered)
        XCTAssertEqual(production.requests.map(\.outcome.status), [200, 403, 200])
        XCTAssertEqual(production.requests[1].outcome.reason, "ExpiredProviderToken")
        XCTAssertEqual(production.providerTokenCounts["KEY1234567"], 2)
    }

    func testOneProviderTokenForManyConcurrentPushes() {
        let results = pipeline().deliver(Array(repeating: Fixtures.apnsPush(), count: 300))
        XCTAssertEqual(results.filter(\.isDelivered).count, 300)
        XCTAssertEqual(production.providerTokenCounts["KEY1234567"], 1)
        XCTAssertEqual(production.connectionCount, 1)
    }

    func testAnOversizedPayloadNeverLeaves() {
        guard case .rejected(413, _) = deliver(Fixtures.apnsPush(payload: Array(repeating: 0x20, count: 4097))) else {
            return XCTFail()
        }
        XCTAssertTrue(production.requests.isEmpty)
        XCTAssertTrue(deliver(Fixtures.apnsPush(payload: Array(#"{"aps":{}}"#.utf8) + Array(repeating: 0x20, count: 5000), pushType: .voip)).isDelivered)
    }

    func testBadDeviceTokenFromTheWrongEnvironmentIsDeliveredInTheOther() {
        production.setOutcome(.onlyIn(.sandbox), forToken: token)
        XCTAssertTrue(deliver().isDelivered)
        XCTAssertEqual(production.requests.first?.outcome.reason, "BadDeviceToken")
        XCTAssertEqual(sandbox.requests.count, 1)
        XCTAssertEqual(events.environmentCorrections.map(\.sandbox), [true])
    }

    func testBadDeviceTokenInBothEnvironmentsIsDead() {
        production.setOutcome(.bad, forToken: token)
        sandbox.setOutcome(.bad, forToken: token)
        XCTAssertEqual(deliver(), .deadToken(reason: "BadDeviceToken", since: nil))
    }

    func testCertificateAuthentication() throws {
        production.shutdown()
        production = try Integration.mockAPNs { $0.tls = .fixtureWithClientCertificates }
        try store.addApp(
            RegisteredApp(
                id: AppID("com.example.pushgate")!,
                credentials: .apnsCertificate(
                    certificatePEM: try MockFixtures.text(MockFixtures.clientCertificateFile),
                    privateKeyPEM: try MockFixtures.text(MockFixtures.clientKeyFile))),
            replacing: false)
        XCTAssertTrue(deliver(Fixtures.apnsPush(app: "com.example.pushgate")).isDelivered)
        XCTAssertEqual(production.requests.first?.auth, .certificate)
        XCTAssertEqual(production.requests.first?.headers["apns-topic"], "com.example.pushgate")
    }
}
