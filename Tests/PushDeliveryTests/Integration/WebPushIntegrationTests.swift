import Foundation
import MockUpstream
import PushCore
import PushCrypto
import PushTesting
import XCTest

@testable import PushDelivery

/// Web Push delivery end to end: pipeline → WebPushClient → CurlEngine → the mock push service
/// over TLS, which checks the VAPID token and decrypts what arrived.
final class WebPushIntegrationTests: XCTestCase {
    private var push: MockWebPush!
    private var engine: CurlEngine!
    private var pipeline: DeliveryPipeline!
    private let store = InMemoryTokenStore()
    private let appID = AppID("web.example")!

    override func setUpWithError() throws {
        var configuration = MockWebPushConfiguration()
        configuration.eventLoopThreads = 1
        push = try MockWebPush(configuration: configuration)
        engine = try Integration.engine()
        try store.addApp(
            RegisteredApp(
                id: appID,
                credentials: .webPush(vapidPrivateKeyPEM: try VAPIDKey.generate().pem(), subject: "mailto:ops@example.com")),
            replacing: false)
        pipeline = try makePipeline(listing: push.baseURL)
    }

    override func tearDown() {
        engine.shutdown()
        push.shutdown()
    }

    private func makePipeline(listing: String) throws -> DeliveryPipeline {
        DeliveryPipeline(
            catalog: store, transport: engine,
            configuration: DeliveryConfiguration(webPushEndpoints: try WebPushEndpointPolicy(listing: listing)),
            providerTokens: ProviderTokenCache(), accessTokens: AccessTokenCache(transport: engine, logger: Fixtures.logger),
            logger: Fixtures.logger)
    }

    private func notification(
        to subscription: MockWebPushSubscription, _ message: WebPushMessage, endpoint: String? = nil
    ) throws -> PushCore.Notification {
        let json = subscription.json.replacingOccurrences(of: subscription.endpoint, with: endpoint ?? subscription.endpoint)
        let token = try XCTUnwrap(WebPushSubscription.parse(json: Array(json.utf8))).token
        return PushCore.Notification(appID: appID, token: token, web: message)
    }

    func testTheSubscriberDecryptsWhatWasSent() throws {
        let subscriptions = try (0..<3).map { _ in try push.createSubscription() }
        let batch = try subscriptions.enumerated().map { index, subscription in
            try notification(
                to: subscription,
                WebPushMessage(
                    payload: Array(#"{"title":"Call \#(index)","body":"ünïcode"}"#.utf8), ttl: 120, urgency: .high,
                    topic: "call-\(index)"))
        }
        let results = pipeline.deliver(batch)
        for result in results {
            guard case .delivered(let location?) = result else { return XCTFail("\(results)") }
            XCTAssertTrue(location.hasPrefix(push.baseURL + "/m/"), location)
        }
        for (index, subscription) in subscriptions.enumerated() {
            let message = try XCTUnwrap(push.messages(for: subscription).first)
            XCTAssertEqual(message.text, #"{"title":"Call \#(index)","body":"ünïcode"}"#)
            XCTAssertEqual(message.ttl, 120)
            XCTAssertEqual(message.urgency, "high")
            XCTAssertEqual(message.topic, "call-\(index)")
            XCTAssertEqual(message.subject, "mailto:ops@example.com")
        }
        XCTAssertEqual(push.connectionCount, 1, "one HTTP/2 connection for the push service")
        XCTAssertEqual(push.requests.first?.httpVersion, "2")
    }

    func testGoneThrottledAndRefusedCredentials() throws {
        let subscription = try push.createSubscription()
        let message = WebPushMessage(payload: Array("hello".utf8), ttl: 60)
        push.markGone(subscription)
        guard case .deadToken(let reason, nil) = pipeline.deliver([try notification(to: subscription, message)])[0] else {
            return XCTFail("expected the subscription gone")
        }
        XCTAssertTrue(reason.hasPrefix("Gone:"), reason)
        push.markGone(subscription, false)

        push.inject(.status(429, reason: "Too Many Requests", retryAfter: 30))
        guard case .retryLater(_, 30) = pipeline.deliver([try notification(to: subscription, message)])[0] else {
            return XCTFail("expected a retry after 30 s")
        }
        push.inject(.status(403, reason: "BadJwtToken"))
        guard case .rejected(403, let refused) = pipeline.deliver([try notification(to: subscription, message)])[0] else {
            return XCTFail("expected the credentials refused")
        }
        XCTAssertTrue(refused.contains("refused the VAPID credentials of app web.example"), refused)
        XCTAssertTrue(pipeline.deliver([try notification(to: subscription, message)])[0].isDelivered, "then accepted")
        XCTAssertEqual(push.messages.map(\.text), ["hello"])

        let tooLarge = WebPushMessage(payload: [UInt8](repeating: 0x61, count: 3994), ttl: 60)
        guard case .rejected(413, _) = pipeline.deliver([try notification(to: subscription, tooLarge)])[0] else {
            return XCTFail("expected 413")
        }
        XCTAssertEqual(push.log.count, 4, "the oversized push was never sent")
    }

    /// `localhost` is listed, but it resolves to a loopback address nobody listed: the connection
    /// is refused before the request, and the push service hears nothing.
    func testAListedNameThatLeadsToALoopbackAddressIsRefused() throws {
        let local = "https://localhost:\(push.port)"
        pipeline = try makePipeline(listing: local)
        let subscription = try push.createSubscription()
        let endpoint = subscription.endpoint.replacingOccurrences(of: push.baseURL, with: local)
        let result = pipeline.deliver([
            try notification(to: subscription, WebPushMessage(payload: [1], ttl: 0), endpoint: endpoint)
        ])[0]
        guard case .rejected(400, let reason) = result else { return XCTFail("\(result)") }
        XCTAssertTrue(reason.hasPrefix("EndpointRefused: \(local) resolved to "), reason)
        XCTAssertTrue(reason.contains(" port \(push.port), in "), reason)
        XCTAssertTrue(reason.contains("loopback"), reason)
        XCTAssertTrue(reason.hasSuffix("which PUSHGATE_WEBPUSH_ENDPOINTS does not list (not connected, not sent)"), reason)
        XCTAssertEqual(push.log.count, 0)
    }
}
