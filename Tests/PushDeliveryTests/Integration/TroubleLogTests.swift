import Foundation
import Logging
import MockUpstream
import PushCore
import PushCrypto
import PushTesting
import XCTest

@testable import PushDelivery

/// Trouble reaches the log at warning once per episode: when it starts, with what it is
/// about, and when it ends, with how many failures it lasted; never once per push.
final class TroubleEpisodeTests: XCTestCase {
    func testAnEpisodeIsLoggedWhenItStartsAndWhenItEnds() {
        let (logger, log) = RecordingLogHandler.logger()
        let episode = TroubleEpisode("upstream unreachable or failing", logger: logger)
        episode.succeeded("APNs")
        XCTAssertTrue(log.all.isEmpty, "no episode, nothing to end")

        episode.failed("APNs", reason: "ServiceUnavailable", metadata: ["app": "com.example.voip"])
        episode.failed("APNs", reason: "InternalServerError")
        episode.failed("APNs", reason: "ServiceUnavailable", count: 3)
        episode.failed("FCM", reason: "UNAVAILABLE")
        XCTAssertEqual(log.all.map(\.level), [.warning, .warning], "one line per subject's episode")
        XCTAssertEqual(
            log.all.map(\.message),
            [
                "upstream unreachable or failing: APNs: ServiceUnavailable (logged once until it recovers)",
                "upstream unreachable or failing: FCM: UNAVAILABLE (logged once until it recovers)",
            ])
        XCTAssertEqual(log.all.first?.metadata["app"], "com.example.voip")

        episode.succeeded("APNs")
        episode.succeeded("APNs")
        XCTAssertEqual(log.all.count, 3)
        XCTAssertEqual(log.all.last?.level, .warning)
        XCTAssertEqual(log.all.last?.message, "upstream unreachable or failing: APNs recovered after 5 failure(s)")

        episode.failed("APNs", reason: "TooManyRequests")
        XCTAssertEqual(log.all.count, 4, "a new episode is logged again")
    }
}

/// The delivery side's episodes, against the mock APNs told to fail.
final class DeliveryTroubleLogTests: XCTestCase {
    private var apns: MockAPNs!
    private var engine: CurlEngine!

    override func setUpWithError() throws {
        apns = try Integration.mockAPNs { $0.providerTokenUpdateInterval = .zero }
        engine = try Integration.engine()
    }

    override func tearDown() {
        engine?.shutdown()
        apns?.shutdown()
        super.tearDown()
    }

    private func pipeline(_ app: RegisteredApp, logger: Logger) throws -> DeliveryPipeline {
        let catalog = InMemoryTokenStore()
        try catalog.addApp(app, replacing: true)
        return DeliveryPipeline(
            catalog: catalog, transport: engine,
            configuration: DeliveryConfiguration(
                apns: APNsEndpoints(production: apns.baseURL, sandbox: apns.baseURL), fcmURL: "https://127.0.0.1:1"),
            providerTokens: ProviderTokenCache(logger: logger),
            accessTokens: AccessTokenCache(transport: engine, logger: logger), logger: logger)
    }

    private func warnings(_ log: RecordingLogHandler.Store) -> [String] {
        log.all.filter { $0.level >= .warning }.map(\.message)
    }

    func testAnAPNsOutageIsLoggedOnceAndItsEndOnce() throws {
        let (logger, log) = RecordingLogHandler.logger()
        let pipeline = try pipeline(Fixtures.apnsTokenApp(), logger: logger)
        apns.inject(.status(503, reason: "ServiceUnavailable"), forNext: 4)
        let failed = pipeline.deliver(Array(repeating: Fixtures.apnsPush(), count: 4))
        XCTAssertEqual(failed, Array(repeating: .retryLater(reason: "ServiceUnavailable", afterSeconds: nil), count: 4))
        XCTAssertEqual(
            warnings(log),
            ["upstream unreachable or failing: APNs: ServiceUnavailable (app com.example.voip) (logged once until it recovers)"])
        let start = try XCTUnwrap(log.all.first { $0.level == .warning })
        XCTAssertEqual(start.metadata["app"], "com.example.voip")
        XCTAssertEqual(start.metadata["provider"], "APNs")

        XCTAssertTrue(pipeline.deliver([Fixtures.apnsPush(), Fixtures.apnsPush()]).allSatisfy(\.isDelivered))
        XCTAssertEqual(warnings(log).count, 2)
        XCTAssertEqual(warnings(log).last, "upstream unreachable or failing: APNs recovered after 4 failure(s)")
    }

    func testRefusedCredentialsAreLoggedOncePerApp() throws {
        let (logger, log) = RecordingLogHandler.logger()
        // Signed with a key the mock does not know under that key id: InvalidProviderToken.
        let pipeline = try pipeline(Fixtures.apnsTokenApp(key: TestKeys.otherAPNsKey), logger: logger)
        let results = pipeline.deliver(Array(repeating: Fixtures.apnsPush(), count: 3))
        XCTAssertEqual(results, Array(repeating: .rejected(status: 403, reason: "InvalidProviderToken"), count: 3))
        XCTAssertEqual(
            warnings(log).filter { $0.hasPrefix("credentials refused") },
            ["credentials refused: APNs app com.example.voip: InvalidProviderToken (logged once until it recovers)"])
        XCTAssertEqual(warnings(log).filter { $0.hasPrefix("upstream") }, [], "APNs answered: no outage")
    }

    func testAnOAuthRefusalIsLoggedOncePerApp() throws {
        var configuration = MockFCMConfiguration(serviceAccounts: [try .fixture])
        configuration.eventLoopThreads = 1
        let fcm = try MockFCM(configuration: configuration)
        defer { fcm.shutdown() }
        let (logger, log) = RecordingLogHandler.logger()
        let catalog = InMemoryTokenStore()
        // A service account the token endpoint does not know: invalid_grant.
        try catalog.addApp(
            RegisteredApp(
                id: AppID("com.example.android")!,
                credentials: .fcmServiceAccount(
                    json: try fcm.serviceAccountJSON(clientEmail: "nobody@pushgate-test.iam.gserviceaccount.com"),
                    projectID: MockFixtures.firebaseProjectID)),
            replacing: false)
        let pipeline = DeliveryPipeline(
            catalog: catalog, transport: engine, configuration: DeliveryConfiguration(fcmURL: fcm.baseURL),
            providerTokens: ProviderTokenCache(logger: logger), accessTokens: AccessTokenCache(transport: engine, logger: logger),
            logger: logger)
        for _ in 0..<3 {
            let result = pipeline.deliver([Fixtures.fcmPush()])[0]
            guard case .rejected(400, let reason) = result, reason.hasPrefix("OAuth token endpoint refused") else {
                return XCTFail("\(result)")
            }
        }
        let refused = warnings(log).filter { $0.hasPrefix("credentials refused: FCM app com.example.android: OAuth token endpoint refused") }
        XCTAssertEqual(refused.count, 1, "\(warnings(log))")
    }
}
