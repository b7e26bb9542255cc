import PushTesting
import PushCore
import PushCrypto
import XCTest

@testable import PushDelivery

/// The request APNsClient builds: path, base URL, every header, payload limits.
final class APNsRequestTests: XCTestCase {
    private var transport: FakeTransport!
    private var client: APNsClient!
    private let clock = ManualClock()

    override func setUp() {
        transport = FakeTransport()
        transport.preload(status: 200, headers: [HTTPHeader("apns-id", "11111111-2222-3333-4444-555555555555")])
        client = APNsClient(
            transport: transport, endpoints: Fixtures.endpoints, providerTokens: ProviderTokenCache(clock: clock.unixClock),
            clock: clock.unixClock, logger: Fixtures.logger)
    }

    private func send(_ push: PushCore.Notification, app: RegisteredApp) -> DeliveryResult? {
        awaitResult { done in client.send(push, app: app, completion: done) }
    }

    private func sentRequest(_ push: PushCore.Notification, app: RegisteredApp = Fixtures.apnsTokenApp()) throws
        -> UpstreamRequest
    {
        XCTAssertEqual(send(push, app: app), .delivered(id: "11111111-2222-3333-4444-555555555555"))
        return try XCTUnwrap(transport.requests.last)
    }

    func testPostsToTheDevicePathOfTheProductionURL() throws {
        let request = try sentRequest(Fixtures.apnsPush())
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.url, "https://apns.test/3/device/000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
        XCTAssertEqual(request.body, Array(#"{"aps":{"alert":"hi"}}"#.utf8))
    }

    func testSandboxComesFromTheNotificationElseTheApp() throws {
        XCTAssertTrue(try sentRequest(Fixtures.apnsPush(sandbox: true)).url.hasPrefix("https://apns-sandbox.test/3/device/"))
        let sandboxApp = Fixtures.apnsTokenApp(sandbox: true)
        XCTAssertTrue(try sentRequest(Fixtures.apnsPush(), app: sandboxApp).url.hasPrefix("https://apns-sandbox.test/"))
        XCTAssertTrue(try sentRequest(Fixtures.apnsPush(sandbox: false), app: sandboxApp).url.hasPrefix("https://apns.test/"))
    }

    func testAuthorizationIsAProviderTokenSignedWithTheAppsKey() throws {
        let request = try sentRequest(Fixtures.apnsPush())
        let authorization = try XCTUnwrap(request.header("authorization"))
        XCTAssertTrue(authorization.hasPrefix("bearer "))
        let jwt = String(authorization.dropFirst("bearer ".count))
        XCTAssertTrue(try JWT.verify(jwt, publicKeyPEM: TestKeys.apnsPublicKey))
        let decoded = try JWT.decode(jwt)
        XCTAssertEqual(decoded.header["kid"], .string("KEY1234567"))
        XCTAssertEqual(decoded.header["alg"], .string("ES256"))
        XCTAssertEqual(decoded.claims["iss"], .string("TEAM123456"))
        XCTAssertEqual(decoded.claims["iat"], .number(Double(clock.now)))
    }

    func testHeadersForADefaultAlert() throws {
        let request = try sentRequest(Fixtures.apnsPush())
        XCTAssertEqual(request.header("apns-topic"), "com.example.voip")
        XCTAssertEqual(request.header("apns-push-type"), "alert")
        XCTAssertEqual(request.header("apns-priority"), "10")
        XCTAssertNil(request.header("apns-expiration"))
        XCTAssertNil(request.header("apns-collapse-id"))
        XCTAssertNil(request.header("apns-id"))
    }

    func testOptionalHeadersAreSentWhenGiven() throws {
        let request = try sentRequest(
            Fixtures.apnsPush(expiration: 0, collapseID: "call-42", id: "123e4567-e89b-12d3-a456-426614174000"))
        XCTAssertEqual(request.header("apns-expiration"), "0")
        XCTAssertEqual(request.header("apns-collapse-id"), "call-42")
        XCTAssertEqual(request.header("apns-id"), "123e4567-e89b-12d3-a456-426614174000")
    }

    func testTopicPrecedenceMessageThenAppThenAppID() throws {
        let app = Fixtures.apnsTokenApp(topic: "com.example.voip.voip")
        XCTAssertEqual(try sentRequest(Fixtures.apnsPush(topic: "com.other"), app: app).header("apns-topic"), "com.other")
        XCTAssertEqual(try sentRequest(Fixtures.apnsPush(), app: app).header("apns-topic"), "com.example.voip.voip")
        XCTAssertEqual(try sentRequest(Fixtures.apnsPush()).header("apns-topic"), "com.example.voip")
    }

    func testPushTypePrecedenceMessageThenAppThenAlert() throws {
        let voipApp = Fixtures.apnsTokenApp(pushType: .voip)
        XCTAssertEqual(try sentRequest(Fixtures.apnsPush(pushType: .background), app: voipApp).header("apns-push-type"), "background")
        XCTAssertEqual(try sentRequest(Fixtures.apnsPush(), app: voipApp).header("apns-push-type"), "voip")
        XCTAssertEqual(try sentRequest(Fixtures.apnsPush()).header("apns-push-type"), "alert")
    }

    func testPriorityDefaultsByPushTypeAndAnExplicitOneWins() throws {
        let cases: [(APNsPushType?, Int?, String)] = [
            (.background, nil, "5"), (.alert, nil, "10"), (.voip, nil, "10"), (nil, nil, "10"), (.alert, 5, "5"),
            (.background, 1, "1"), (.widgets, nil, "5"), (.pushtotalk, nil, "10"), (.liveactivity, 5, "5"),
        ]
        for (pushType, priority, expected) in cases {
            let request = try sentRequest(Fixtures.apnsPush(pushType: pushType, priority: priority))
            XCTAssertEqual(request.header("apns-priority"), expected, "\(String(describing: pushType)) \(String(describing: priority))")
        }
    }

    /// Every push type with its app's derived topic: the headers Apple asks for, pushtotalk
    /// with the expiration 0 it must carry.
    func testEachPushTypeGoesToItsTopicAtItsPriority() throws {
        let expected: [APNsPushType: (topic: String, priority: String, expiration: String?)] = [
            .alert: ("com.example.app", "10", nil), .background: ("com.example.app", "5", nil),
            .location: ("com.example.app.location-query", "10", nil), .voip: ("com.example.app.voip", "10", nil),
            .complication: ("com.example.app.complication", "10", nil),
            .fileprovider: ("com.example.app.pushkit.fileprovider", "10", nil),
            .liveactivity: ("com.example.app.push-type.liveactivity", "10", nil),
            .pushtotalk: ("com.example.app.voip-ptt", "10", "0"),
            .widgets: ("com.example.app.push-type.widgets", "5", nil),
            .controls: ("com.example.app.push-type.controls", "10", nil),
        ]
        XCTAssertEqual(Set(expected.keys), Set(APNsPushType.allCases).subtracting([.mdm]))
        for (type, want) in expected {
            let app = Fixtures.apnsTokenApp(id: "com.example.app", pushType: type)
            let request = try sentRequest(Fixtures.apnsPush(app: "com.example.app"), app: app)
            XCTAssertEqual(request.header("apns-push-type"), type.rawValue)
            XCTAssertEqual(request.header("apns-topic"), want.topic, "\(type)")
            XCTAssertEqual(request.header("apns-priority"), want.priority, "\(type)")
            XCTAssertEqual(request.header("apns-expiration"), want.expiration, "\(type)")
        }
        let mdm = Fixtures.apnsTokenApp(id: "com.example.app", topic: "com.apple.mgmt.External.1234", pushType: .mdm)
        XCTAssertEqual(try sentRequest(Fixtures.apnsPush(app: "com.example.app"), app: mdm).header("apns-topic"), "com.apple.mgmt.External.1234")
    }

    func testControlsAppleWouldRefuseAreNotSent() {
        let cases: [(PushCore.Notification, String)] = [
            (Fixtures.apnsPush(pushType: .background, priority: 10), "BadPriority"),
            (Fixtures.apnsPush(priority: 7), "BadPriority"),
            (Fixtures.apnsPush(pushType: .pushtotalk, priority: 5), "BadPriority"),
            (Fixtures.apnsPush(pushType: .pushtotalk, expiration: 1_900_000_000), "BadExpirationDate"),
            (Fixtures.apnsPush(expiration: -1), "BadExpirationDate"),
            (Fixtures.apnsPush(collapseID: String(repeating: "é", count: 33)), "BadCollapseId"),
        ]
        for (push, reason) in cases {
            guard case .rejected(400, let text)? = send(push, app: Fixtures.apnsTokenApp()) else {
                return XCTFail("\(reason): not rejected")
            }
            XCTAssertTrue(text.hasPrefix(reason + ": "), text)
        }
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testCertificateAppsPresentTheirCertificateAndNoBearer() throws {
        let app = RegisteredApp(
            id: AppID("com.example.voip")!,
            credentials: .apnsCertificate(certificatePEM: "CERT PEM", privateKeyPEM: "KEY PEM"))
        let request = try sentRequest(Fixtures.apnsPush(), app: app)
        XCTAssertNil(request.header("authorization"))
        XCTAssertEqual(request.clientIdentity, .pem(certificate: Array("CERT PEM".utf8), privateKey: Array("KEY PEM".utf8)))
    }

    func testPayloadLimitsAreEnforcedBeforeSending() {
        let cases: [(APNsPushType, Int, Bool)] = [
            (.alert, 4096, true), (.alert, 4097, false), (.background, 4097, false), (.voip, 5120, true),
            (.voip, 5121, false), (.pushtotalk, 4097, false), (.liveactivity, 4096, true),
        ]
        for (pushType, size, accepted) in cases {
            let before = transport.requests.count
            let result = send(
                Fixtures.apnsPush(payload: Array(repeating: UInt8(ascii: "x"), count: size), pushType: pushType),
                app: Fixtures.apnsTokenApp())
            if accepted {
                XCTAssertEqual(result?.isDelivered, true, "\(pushType) \(size)")
                XCTAssertEqual(transport.requests.count, before + 1)
            } else {
                guard case .rejected(413, let reason)? = result else { return XCTFail("\(pushType) \(size): \(String(describing: result))") }
                XCTAssertTrue(reason.hasPrefix("PayloadTooLarge"), reason)
                XCTAssertEqual(transport.requests.count, before, "nothing sent for \(pushType) \(size)")
            }
        }
    }

    func testAPushWithoutAnAPNsPayloadIsRejected() {
        let push = PushCore.Notification(appID: AppID("com.example.voip")!, token: Fixtures.apnsToken)
        guard case .rejected(400, _)? = send(push, app: Fixtures.apnsTokenApp()) else { return XCTFail() }
        XCTAssertTrue(transport.requests.isEmpty)
    }

    func testAnUnusableKeyIsReportedWithoutSending() {
        guard case .rejected(500, let reason)? = send(Fixtures.apnsPush(), app: Fixtures.apnsTokenApp(key: "not a key")) else {
            return XCTFail()
        }
        XCTAssertTrue(reason.contains("com.example.voip"), reason)
        XCTAssertTrue(transport.requests.isEmpty)
    }
}
