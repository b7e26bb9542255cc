import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

@testable import PushDelivery

/// FCM delivery end to end: pipeline → FCMClient → CurlEngine → mock FCM (OAuth + send) over TLS.
final class FCMIntegrationTests: XCTestCase {
    private var fcm: MockFCM!
    private var engine: CurlEngine!
    private var pipeline: DeliveryPipeline!
    private let store = InMemoryTokenStore()
    private let token = Fixtures.fcmToken.fcmText!

    override func setUpWithError() throws {
        var configuration = MockFCMConfiguration(serviceAccounts: [try .fixture])
        configuration.eventLoopThreads = 1
        fcm = try MockFCM(configuration: configuration)
        engine = try Integration.engine()
        try store.addApp(
            RegisteredApp(
                id: AppID("com.example.android")!,
                credentials: .fcmServiceAccount(json: try fcm.serviceAccountJSON(), projectID: MockFixtures.firebaseProjectID)),
            replacing: false)
        pipeline = DeliveryPipeline(
            catalog: store, transport: engine, configuration: DeliveryConfiguration(fcmURL: fcm.baseURL),
            providerTokens: ProviderTokenCache(), accessTokens: AccessTokenCache(transport: engine, logger: Fixtures.logger),
            logger: Fixtures.logger)
    }

    override func tearDown() {
        engine.shutdown()
        fcm.shutdown()
    }

    private func deliver() -> DeliveryResult {
        pipeline.deliver([Fixtures.fcmPush()])[0]
    }

    func testDelivered() throws {
        guard case .delivered(let name?) = deliver() else { return XCTFail() }
        XCTAssertTrue(name.hasPrefix("projects/pushgate-test/messages/"), name)
        let send = try XCTUnwrap(fcm.sendRequests.first)
        XCTAssertEqual(send.path, "/v1/projects/pushgate-test/messages:send")
        XCTAssertEqual(send.auth, .accessToken(clientEmail: MockFixtures.serviceAccountEmail))
        XCTAssertEqual(send.bodyJSON?.objectValue?["message"]?.objectValue?["token"], .string(token))
        XCTAssertEqual(fcm.tokenRequests.first?.auth, .assertion(clientEmail: MockFixtures.serviceAccountEmail))
    }

    func testErrorsMapToResults() {
        let cases: [(FCMTokenOutcome, (DeliveryResult) -> Bool)] = [
            (.unregistered, { if case .deadToken = $0 { return true } else { return false } }),
            (.senderIDMismatch, { if case .deadToken = $0 { return true } else { return false } }),
            (.invalidArgument, { if case .rejected(400, _) = $0 { return true } else { return false } }),
            (.quotaExceeded(retryAfter: 60), { if case .retryLater(_, 60) = $0 { return true } else { return false } }),
            (.unavailable(retryAfter: 5), { if case .retryLater(_, 5) = $0 { return true } else { return false } }),
            (.internal, { if case .retryLater(_, nil) = $0 { return true } else { return false } }),
        ]
        for (outcome, matches) in cases {
            fcm.setOutcome(outcome, forToken: token)
            let result = deliver()
            XCTAssertTrue(matches(result), "\(outcome): \(result)")
        }
        XCTAssertEqual(fcm.tokenRequests.count, 1, "one access token throughout")
    }

    func testInjectedFaultsAreRetriedLater() {
        fcm.inject(.status(429, reason: "QUOTA_EXCEEDED", retryAfter: 9))
        guard case .retryLater(_, 9) = deliver() else { return XCTFail("429") }
        // libcurl retries a request by itself, once, when a *reused* connection dies before any
        // reply: a reset of the retry's fresh connection too is what reaches the client.
        fcm.inject(.resetConnection, forNext: 2)
        guard case .retryLater(let reason, nil) = deliver() else { return XCTFail("reset") }
        XCTAssertTrue(reason.hasPrefix("FCM connection lost"), reason)
        fcm.clearFaults()
        XCTAssertTrue(deliver().isDelivered)
    }

    func testAnExpiredAccessTokenIsRefreshedOnce() {
        XCTAssertTrue(deliver().isDelivered)
        fcm.expireAccessTokens()
        XCTAssertTrue(deliver().isDelivered)
        XCTAssertEqual(fcm.sendRequests.map(\.outcome.status), [200, 401, 200])
        XCTAssertEqual(fcm.accessTokensIssued, 2)
    }

    func testConcurrentSendsShareOneAccessTokenRequest() {
        let results = pipeline.deliver(Array(repeating: Fixtures.fcmPush(), count: 64))
        XCTAssertEqual(results.filter(\.isDelivered).count, 64)
        XCTAssertEqual(fcm.tokenRequests.count, 1)
    }

    func testAnUnavailableTokenEndpointIsRetriedLater() {
        fcm.injectTokenEndpointFault(.status(503, reason: "UNAVAILABLE", retryAfter: 3))
        guard case .retryLater(_, 3) = deliver() else { return XCTFail() }
        XCTAssertTrue(fcm.sendRequests.isEmpty)
        XCTAssertTrue(deliver().isDelivered)
    }
}
