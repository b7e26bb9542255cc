import PushTesting
import PushCore
import PushCrypto
import XCTest

@testable import PushDelivery

/// Every APNs reply → DeliveryResult, and the two second chances (other environment, renewed JWT).
/// (developer.apple.com, "Handling notification responses from APNs".)
final class APNsReplyMappingTests: XCTestCase {
    private var transport: FakeTransport!
    private var events: RecordingEvents!
    private var client: APNsClient!
    private let clock = ManualClock()

    override func setUp() {
        transport = FakeTransport()
        events = RecordingEvents()
        client = APNsClient(
            transport: transport, endpoints: Fixtures.endpoints, providerTokens: ProviderTokenCache(clock: clock.unixClock),
            events: events, clock: clock.unixClock, logger: Fixtures.logger)
    }

    private func send(_ push: PushCore.Notification = Fixtures.apnsPush()) -> DeliveryResult? {
        awaitResult { done in client.send(push, app: Fixtures.apnsTokenApp(), completion: done) }
    }

    private static func reason(_ text: String, timestamp: Int64? = nil) -> String {
        timestamp.map { #"{"reason":"\#(text)","timestamp":\#($0)}"# } ?? #"{"reason":"\#(text)"}"#
    }

    func testRepliesMapToResults() {
        let retryAfter = [HTTPHeader("retry-after", "30")]
        let table: [(FakeTransport.Reply, DeliveryResult, String)] = [
            (.response(200, headers: [HTTPHeader("apns-id", "abc")]), .delivered(id: "abc"), "200"),
            (.response(200), .delivered(id: nil), "200 without apns-id"),
            (.response(410, body: Self.reason("Unregistered", timestamp: 1_700_000_000_123)),
             .deadToken(reason: "Unregistered", since: 1_700_000_000_123), "410 Unregistered keeps the timestamp"),
            (.response(410, body: Self.reason("ExpiredToken")), .deadToken(reason: "ExpiredToken", since: nil), "410 ExpiredToken"),
            (.response(400, body: Self.reason("DeviceTokenNotForTopic")),
             .deadToken(reason: "DeviceTokenNotForTopic", since: nil), "400 DeviceTokenNotForTopic"),
            (.response(400, body: Self.reason("BadTopic")), .rejected(status: 400, reason: "BadTopic"), "400 BadTopic"),
            (.response(400, body: Self.reason("BadCollapseId")), .rejected(status: 400, reason: "BadCollapseId"), "400"),
            (.response(403, body: Self.reason("BadCertificate")), .rejected(status: 403, reason: "BadCertificate"), "403"),
            (.response(403, body: Self.reason("TopicDisallowed")), .rejected(status: 403, reason: "TopicDisallowed"), "403"),
            (.response(405, body: Self.reason("MethodNotAllowed")), .rejected(status: 405, reason: "MethodNotAllowed"), "405"),
            (.response(413, body: Self.reason("PayloadTooLarge")), .rejected(status: 413, reason: "PayloadTooLarge"), "413"),
            (.response(404, body: "not json"), .rejected(status: 404, reason: "HTTP 404"), "no JSON body"),
            (.response(429, headers: retryAfter, body: Self.reason("TooManyRequests")),
             .retryLater(reason: "TooManyRequests", afterSeconds: 30), "429 with Retry-After"),
            (.response(500, body: Self.reason("InternalServerError")),
             .retryLater(reason: "InternalServerError", afterSeconds: nil), "500"),
            (.response(503, headers: retryAfter, body: Self.reason("ServiceUnavailable")),
             .retryLater(reason: "ServiceUnavailable", afterSeconds: 30), "503"),
            (.response(503, body: Self.reason("Shutdown")), .retryLater(reason: "Shutdown", afterSeconds: nil), "503 Shutdown"),
            (.failure(.timeout("28")), .retryLater(reason: "APNs timed out: 28", afterSeconds: nil), "time-out"),
            (.failure(.connectionLost("GOAWAY")), .retryLater(reason: "APNs connection lost: GOAWAY", afterSeconds: nil), "GOAWAY"),
            (.failure(.tls("bad cert")), .retryLater(reason: "APNs TLS failure: bad cert", afterSeconds: nil), "TLS"),
        ]
        for (reply, expected, name) in table {
            transport = FakeTransport()
            setUpClient()
            transport.preload(reply)
            XCTAssertEqual(send(), expected, name)
            XCTAssertEqual(transport.requests.count, 1, name)
        }
    }

    private func setUpClient() {
        client = APNsClient(
            transport: transport, endpoints: Fixtures.endpoints, providerTokens: ProviderTokenCache(clock: clock.unixClock),
            events: events, clock: clock.unixClock, logger: Fixtures.logger)
    }

    // MARK: BadDeviceToken: the other environment once

    func testBadDeviceTokenThatTheOtherEnvironmentAcceptsIsDeliveredAndRemembered() {
        transport.preload("apns.test", status: 400, body: Self.reason("BadDeviceToken"))
        transport.preload("apns-sandbox.test", status: 200, headers: [HTTPHeader("apns-id", "from-sandbox")])
        XCTAssertEqual(send(), .delivered(id: "from-sandbox"))
        XCTAssertEqual(transport.requests.map { String($0.url.prefix(26)) }, ["https://apns.test/3/device", "https://apns-sandbox.test/"])
        XCTAssertEqual(events.environmentCorrections.map(\.sandbox), [true])
        XCTAssertEqual(events.environmentCorrections.map(\.token), [Fixtures.apnsToken])
    }

    func testBadDeviceTokenInSandboxTriesProduction() {
        transport.preload("apns-sandbox.test", status: 400, body: Self.reason("BadDeviceToken"))
        transport.preload("https://apns.test", status: 200)
        XCTAssertEqual(send(Fixtures.apnsPush(sandbox: true)), .delivered(id: nil))
        XCTAssertEqual(events.environmentCorrections.map(\.sandbox), [false])
    }

    func testBadDeviceTokenInBothEnvironmentsIsDead() {
        transport.preload(status: 400, body: Self.reason("BadDeviceToken"))
        XCTAssertEqual(send(), .deadToken(reason: "BadDeviceToken", since: nil))
        XCTAssertEqual(transport.requests.count, 2)
        XCTAssertTrue(events.environmentCorrections.isEmpty)
    }

    func testBadDeviceTokenWhenTheOtherEnvironmentRefusesOtherwiseIsDead() {
        transport.preload("apns.test", status: 400, body: Self.reason("BadDeviceToken"))
        transport.preload("apns-sandbox.test", status: 403, body: Self.reason("BadCertificateEnvironment"))
        XCTAssertEqual(send(), .deadToken(reason: "BadDeviceToken", since: nil))
    }

    func testBadDeviceTokenWhenTheOtherEnvironmentFailsIsRetriedLaterNotPruned() {
        transport.preload("apns.test", status: 400, body: Self.reason("BadDeviceToken"))
        transport.preload("apns-sandbox.test", status: 503, body: Self.reason("ServiceUnavailable"))
        XCTAssertEqual(send(), .retryLater(reason: "ServiceUnavailable", afterSeconds: nil))
    }

    func testUnregisteredInTheOtherEnvironmentKeepsItsTimestamp() {
        transport.preload("apns.test", status: 400, body: Self.reason("BadDeviceToken"))
        transport.preload("apns-sandbox.test", status: 410, body: Self.reason("Unregistered", timestamp: 42))
        XCTAssertEqual(send(), .deadToken(reason: "Unregistered", since: 42))
    }

    // MARK: ExpiredProviderToken: renew and retry once

    private func bearer(_ request: UpstreamRequest) throws -> String {
        let header = try XCTUnwrap(request.header("authorization"))
        return String(header.dropFirst("bearer ".count))
    }

    func testExpiredProviderTokenIsRenewedAndTheRequestRetriedOnce() throws {
        let providerTokens = ProviderTokenCache(clock: clock.unixClock)
        client = APNsClient(
            transport: transport, endpoints: Fixtures.endpoints, providerTokens: providerTokens, events: events,
            clock: clock.unixClock, logger: Fixtures.logger)
        // A token signed now, then refused 2 minutes later (older than the renewal floor).
        _ = send()  // nothing preloaded: 599, but the token is minted
        clock.advance(by: 120)
        transport.preload(.response(403, body: Self.reason("ExpiredProviderToken")), .response(200))
        XCTAssertEqual(send(), .delivered(id: nil))
        let requests = Array(transport.requests.suffix(2))
        let (first, second) = (try bearer(requests[0]), try bearer(requests[1]))
        XCTAssertNotEqual(first, second)
        for jwt in [first, second] { XCTAssertTrue(try JWT.verify(jwt, publicKeyPEM: TestKeys.apnsPublicKey)) }
        XCTAssertEqual(try JWT.decode(second).claims["iat"], .number(Double(clock.now)))
    }

    func testASecondRefusalIsRejectedWithoutAThirdRequest() throws {
        _ = send()
        clock.advance(by: 120)
        let before = transport.requests.count
        transport.preload(status: 403, body: Self.reason("ExpiredProviderToken"))
        XCTAssertEqual(send(), .rejected(status: 403, reason: "ExpiredProviderToken"))
        XCTAssertEqual(transport.requests.count, before + 2)
    }

    func testInvalidProviderTokenAlsoGetsOneRenewal() {
        _ = send()
        clock.advance(by: 120)
        let before = transport.requests.count
        transport.preload(.response(403, body: Self.reason("InvalidProviderToken")), .response(200))
        XCTAssertEqual(send(), .delivered(id: nil))
        XCTAssertEqual(transport.requests.count, before + 2)
    }

    func testAFreshTokenRefusedAsExpiredIsNotRenewedAgain() {
        // Younger than the forced-renewal floor: the clocks disagree, renewing would not help.
        transport.preload(.response(403, body: Self.reason("ExpiredProviderToken")), .response(200))
        XCTAssertEqual(send(), .rejected(status: 403, reason: "ExpiredProviderToken"))
        XCTAssertEqual(transport.requests.count, 1)
    }
}
