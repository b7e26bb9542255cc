import Foundation
import PushCore
import PushCrypto
import PushTesting
import XCTest

@testable import PushDelivery

/// The Web Push request and every answer → DeliveryResult; what is refused before sending.
final class WebPushClientTests: XCTestCase {
    private var transport: FakeTransport!
    private var client: WebPushClient!
    private var subscriber: ECDHKeyPair!
    private let auth: [UInt8] = Array(0..<16)
    private let clock = ManualClock()
    private var vapid: VAPIDKey!
    private let endpoint = "https://push.test/wpush/v2/abc"

    override func setUpWithError() throws {
        transport = FakeTransport()
        subscriber = try ECDHKeyPair.generate()
        vapid = try VAPIDKey.generate()
        client = WebPushClient(
            transport: transport, endpoints: try WebPushEndpointPolicy(listing: "https://push.test"),
            clock: clock.unixClock, logger: Fixtures.logger)
    }

    private func app(pem: String? = nil) throws -> RegisteredApp {
        RegisteredApp(
            id: AppID("web.example")!,
            credentials: .webPush(vapidPrivateKeyPEM: try pem ?? vapid.pem(), subject: "mailto:ops@example.com"))
    }

    private func token(endpoint: String? = nil) throws -> DeviceToken {
        try subscription(endpoint: endpoint).token
    }

    private func subscription(endpoint: String? = nil) throws -> WebPushSubscription {
        let json =
            #"{"endpoint":"\#(endpoint ?? self.endpoint)","keys":{"p256dh":"\#(Base64URL.encode(subscriber.publicKey))","auth":"\#(Base64URL.encode(auth))"}}"#
        return try XCTUnwrap(WebPushSubscription.parse(json: Array(json.utf8)))
    }

    private static let hi = WebPushMessage(payload: Array(#"{"title":"Hi"}"#.utf8), ttl: 600)

    private func push(_ message: WebPushMessage? = hi, token: DeviceToken? = nil) throws -> PushCore.Notification {
        PushCore.Notification(appID: AppID("web.example")!, token: try token ?? self.token(), web: message)
    }

    private func send(_ notification: PushCore.Notification, app: RegisteredApp? = nil) throws -> DeliveryResult? {
        let app = try app ?? self.app()
        return awaitResult { done in client.send(notification, app: app, completion: done) }
    }

    func testRequestHeadersVAPIDAndAnEncryptedBody() throws {
        transport.preload("push.test", status: 201, headers: [HTTPHeader("location", "https://push.test/m/1")])
        let message = WebPushMessage(payload: Array("ünïcode".utf8), ttl: 600, urgency: .veryLow, topic: "call-42")
        XCTAssertEqual(try send(push(message)), .delivered(id: "https://push.test/m/1"))

        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.url, endpoint)
        XCTAssertEqual(request.header("content-encoding"), "aes128gcm")
        XCTAssertEqual(request.header("ttl"), "600")
        XCTAssertEqual(request.header("urgency"), "very-low")
        XCTAssertEqual(request.header("topic"), "call-42")
        XCTAssertEqual(
            try WebPushEncryption.decrypt(request.body, receiverKeys: subscriber, authSecret: auth), message.payload)

        let vapidHeader = try XCTUnwrap(VAPIDAuthorization(header: try XCTUnwrap(request.header("authorization"))))
        XCTAssertEqual(vapidHeader.publicKey, try vapid.publicKey())
        let claims = try XCTUnwrap(vapidHeader.verifiedClaims()).claims
        XCTAssertEqual(claims["aud"], .string("https://push.test"))
        XCTAssertEqual(claims["sub"], .string("mailto:ops@example.com"))
        XCTAssertEqual(claims["exp"], .number(Double(clock.now + VAPIDTokenCache.lifetime)))

        // Another push: a new key and salt, the same VAPID token.
        _ = try send(push(message))
        let second = try XCTUnwrap(transport.requests.last)
        XCTAssertEqual(second.header("authorization"), request.header("authorization"))
        XCTAssertNotEqual(second.body.prefix(86), request.body.prefix(86))
        let bare = WebPushRequest.make(
            endpoint: endpoint, body: [], ttl: 90_000_000, urgency: nil, topic: nil, authorization: "a", addressCheck: nil)
        XCTAssertNil(bare.header("urgency"))
        XCTAssertNil(bare.header("topic"))
        XCTAssertEqual(bare.header("ttl"), "2592000")
    }

    func testRefusedBeforeSending() throws {
        let tooLarge = WebPushMessage(payload: [UInt8](repeating: 1, count: WebPushMessage.maximumPayloadLength + 1), ttl: 60)
        guard case .rejected(413, let reason)? = try send(push(tooLarge)) else { return XCTFail("expected 413") }
        XCTAssertTrue(reason.hasPrefix("PayloadTooLarge: 3994 bytes"), reason)

        let elsewhere = try push(token: token(endpoint: "https://evil.test/push"))
        guard case .rejected(400, let refusal)? = try send(elsewhere) else { return XCTFail("expected a refusal") }
        XCTAssertTrue(refusal.hasPrefix("EndpointRefused: push endpoint https://evil.test"), refusal)

        XCTAssertEqual(
            try send(push(nil)), .rejected(status: 400, reason: "MissingPayload: the push has no Web Push message"))
        let notASubscription = try push(token: DeviceToken(bytes: Array("fcm-token".utf8)))
        XCTAssertEqual(
            try send(notASubscription),
            .rejected(status: 400, reason: "BadRequest: the token is not a Web Push subscription"))
        guard case .rejected(500, let credentials)? = try send(push(), app: app(pem: "not a key")) else {
            return XCTFail("expected the app's credentials refused")
        }
        XCTAssertTrue(credentials.hasPrefix("credentials of app web.example unusable: VAPID key"), credentials)
        XCTAssertTrue(transport.requests.isEmpty, "nothing was sent")
    }

    /// 65 bytes that start like a point but lie on no curve: nothing can ever be encrypted to
    /// them, so the subscription is as dead as a 410 one (and nothing is sent).
    func testKeysThatAreNoPointMakeADeadSubscription() throws {
        var point = subscriber.publicKey
        point[64] ^= 1
        let json = #"{"endpoint":"\#(endpoint)","keys":{"p256dh":"\#(Base64URL.encode(point))","auth":"\#(Base64URL.encode(auth))"}}"#
        let notification = try push(token: XCTUnwrap(WebPushSubscription.parse(json: Array(json.utf8))).token)
        guard case .deadToken(let reason, nil)? = try send(notification) else { return XCTFail("expected dead") }
        XCTAssertTrue(reason.hasPrefix("BadSubscription: "), reason)
        XCTAssertEqual(UpstreamReasonLabel.bounded(reason), "BadSubscription")
        XCTAssertTrue(transport.requests.isEmpty)
    }

    /// A dialect's reading of the subscription spares the client its own, and skips none of
    /// its checks: an endpoint off the allow-list is refused however the push came.
    func testASubscriptionThePushCarriesIsSentToAndChecked() throws {
        transport.preload("push.test", status: 201)
        let carried = PushCore.Notification(app: try app(), subscription: try subscription(), web: Self.hi)
        XCTAssertEqual(carried.token, try token())
        XCTAssertEqual(try send(carried), .delivered(id: nil))
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.url, endpoint)
        XCTAssertEqual(
            try WebPushEncryption.decrypt(request.body, receiverKeys: subscriber, authSecret: auth), Self.hi.payload)
        XCTAssertNotNil(request.addressCheck?.refusal("10.1.2.3", 443), "the connected address is still checked")

        let elsewhere = PushCore.Notification(
            app: try app(), subscription: try subscription(endpoint: "https://evil.test/push"), web: Self.hi)
        guard case .rejected(400, let refusal)? = try send(elsewhere) else { return XCTFail("expected a refusal") }
        XCTAssertTrue(refusal.hasPrefix("EndpointRefused: push endpoint https://evil.test"), refusal)
        XCTAssertEqual(transport.requests.count, 1, "nothing sent to the refused endpoint")
    }

    func testTheConnectedAddressIsChecked() throws {
        transport.preload("push.test", status: 201)
        _ = try send(push())
        let check = try XCTUnwrap(transport.requests.first?.addressCheck)
        XCTAssertNil(check.refusal("93.184.216.34", 443))
        for address in ["10.1.2.3", "127.0.0.1", "169.254.169.254", "192.168.0.1", "::1", "fd00::1", "64:ff9b:1::1"] {
            let refusal = try XCTUnwrap(check.refusal(address, 443), address)
            XCTAssertTrue(refusal.contains("https://push.test resolved to \(address) port 443, in "), refusal)
            XCTAssertTrue(refusal.hasSuffix("(not connected, not sent)"), refusal)
        }
        XCTAssertNotNil(check.refusal("not an address", 443))
    }

    func testAnswers() throws {
        let cases: [(FakeTransport.Reply, (DeliveryResult) -> Bool)] = [
            (.response(410, body: #"{"errno":103,"message":"gone"}"#), { if case .deadToken("Gone: gone (errno 103)", nil) = $0 { return true } else { return false } }),
            (.response(404), { if case .deadToken = $0 { return true } else { return false } }),
            (.response(413), { if case .rejected(413, _) = $0 { return true } else { return false } }),
            (.response(400, body: "Missing TTL"), { $0 == .rejected(status: 400, reason: "BadRequest: Missing TTL") }),
            (.response(429, headers: [HTTPHeader("retry-after", "120")]), { if case .retryLater(_, 120) = $0 { return true } else { return false } }),
            (.response(502), { if case .retryLater(_, nil) = $0 { return true } else { return false } }),
            (.failure(.connectionLost("reset")), { if case .retryLater = $0 { return true } else { return false } }),
            (.failure(.invalidRequest("10.0.0.1 is private")), { $0 == .rejected(status: 400, reason: "EndpointRefused: 10.0.0.1 is private") }),
        ]
        for (reply, expected) in cases {
            transport.preload("push.test", reply)
            let result = try XCTUnwrap(try send(push()))
            XCTAssertTrue(expected(result), "\(reply.outcome) → \(result)")
        }
    }

    /// 401/403 are the app's credentials: said so (the trouble log and /status read it), and
    /// the refused token is not sent again.
    func testRefusedCredentialsAreTheAppsAndSignAfresh() throws {
        transport.preload("push.test", .response(403, body: #"{"reason":"BadJwtToken"}"#), .response(201))
        guard case .rejected(403, let reason)? = try send(push()) else { return XCTFail("expected 403") }
        XCTAssertEqual(reason, "Forbidden: BadJwtToken (the push service refused the VAPID credentials of app web.example)")
        XCTAssertEqual(try send(push()), .delivered(id: nil))
        let headers = transport.requests.map { $0.header("authorization") }
        XCTAssertEqual(headers.count, 2)
        XCTAssertNotEqual(headers[0], headers[1])
    }
}
