import Foundation
import PushCore
import PushTesting
import XCTest

@testable import PushDelivery

/// The Deliverer the dialects use: app lookup, routing by platform, batch order.
final class DeliveryRouterTests: XCTestCase {
    private let transport = FakeTransport()
    private let store = InMemoryTokenStore()
    private let clock = ManualClock()
    private var router: DeliveryRouter!

    override func setUpWithError() throws {
        try store.addApp(Fixtures.apnsTokenApp(), replacing: false)
        try store.addApp(Fixtures.fcmApp(), replacing: false)
        transport.preload("oauth.test", status: 200, body: #"{"access_token":"t","expires_in":3600}"#)
        router = makeRouter(catalog: store)
    }

    private func makeRouter(catalog: AppCatalog) -> DeliveryRouter {
        DeliveryRouter(
            catalog: catalog, transport: transport,
            configuration: DeliveryConfiguration(apns: Fixtures.endpoints, fcmURL: "https://fcm.test"),
            providerTokens: ProviderTokenCache(clock: clock.unixClock),
            accessTokens: AccessTokenCache(transport: transport, clock: clock.unixClock, logger: Fixtures.logger),
            clock: clock.unixClock, logger: Fixtures.logger)
    }

    func testAMixedBatchIsAnsweredInOrder() {
        transport.preload("apns.test", status: 200, headers: [HTTPHeader("apns-id", "a1")], delaySeconds: 0.2)
        transport.preload("fcm.test", status: 404, body: "")
        let results = router.deliver([
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
        // No answer until all 20 are sent: a router that waited for each answer would stall
        // until the gate's time-out, however fast the machine.
        transport.holdReplies(untilRequests: 20)
        let results = router.deliver(Array(repeating: Fixtures.apnsPush(), count: 20))
        XCTAssertEqual(results.count, 20)
        XCTAssertTrue(transport.openedByRequests, "the router waited for an answer before sending the rest")
    }

    func testAnEmptyBatch() {
        XCTAssertEqual(router.deliver([]), [])
    }

    func testAReplacedKeyTakesEffectOnTheNextPush() throws {
        transport.preload("apns.test", status: 200)
        _ = router.deliver([Fixtures.apnsPush()])
        try store.addApp(Fixtures.apnsTokenApp(key: TestKeys.otherAPNsKey), replacing: true)
        _ = router.deliver([Fixtures.apnsPush()])
        let bearers = transport.requests(containing: "apns.test").compactMap { $0.header("authorization") }
        XCTAssertEqual(bearers.count, 2)
        XCTAssertNotEqual(bearers[0], bearers[1])
    }

    func testACatalogFailureIsRetriedLater() {
        router = makeRouter(catalog: FailingCatalog())
        guard case .retryLater(let reason, nil) = router.deliver([Fixtures.apnsPush()])[0] else { return XCTFail() }
        XCTAssertTrue(reason.hasPrefix("app catalog unavailable"), reason)
    }

    /// The app a dialect found travels with its push: the router sends with it (here an app
    /// the catalog does not even hold) and reads the catalog only for pushes that name an id.
    func testAnAppThePushCarriesIsNotLookedUpAgain() {
        let catalog = CountingCatalog(store)
        router = makeRouter(catalog: catalog)
        transport.preload("apns.test", status: 200, headers: [HTTPHeader("apns-id", "a1")])
        let carried = PushCore.Notification(
            app: Fixtures.apnsTokenApp(id: "com.example.carried"), token: Fixtures.apnsToken,
            apns: Fixtures.apnsPush().apns)

        XCTAssertEqual(router.deliver([carried, carried]), [.delivered(id: "a1"), .delivered(id: "a1")])
        XCTAssertEqual(awaitResult { done in router.submit(carried, completion: done) }, .delivered(id: "a1"))
        XCTAssertEqual(catalog.appsRead, [], "no push was looked up")

        XCTAssertEqual(
            router.deliver([Fixtures.apnsPush(), carried, Fixtures.apnsPush()]),
            [.delivered(id: "a1"), .delivered(id: "a1"), .delivered(id: "a1")])
        XCTAssertEqual(catalog.appsRead, [AppID("com.example.voip")!], "once for the batch's pushes that name it")
    }

    func testSubmitAnswersAsynchronously() {
        transport.preload("apns.test", status: 200, headers: [HTTPHeader("apns-id", "x")])
        XCTAssertEqual(awaitResult { done in router.submit(Fixtures.apnsPush(), completion: done) }, .delivered(id: "x"))
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
