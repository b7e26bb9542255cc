import PushTesting
import Foundation
import PushCore
import PushCrypto
import XCTest

@testable import PushDelivery

/// The FCM HTTP v1 request and every error → DeliveryResult.
/// (firebase.google.com, "FCM error codes" / REST v1 `ErrorCode`.)
final class FCMClientTests: XCTestCase {
    private var transport: FakeTransport!
    private var client: FCMClient!
    private let clock = ManualClock()
    private let sendURL = "https://fcm.test/v1/projects/pushgate-test/messages:send"

    override func setUp() {
        transport = FakeTransport()
        transport.preload(
            "oauth.test", status: 200,
            body: #"{"access_token":"ya29.first","expires_in":3599,"token_type":"Bearer"}"#)
        client = makeClient()
    }

    private func makeClient() -> FCMClient {
        FCMClient(
            transport: transport, baseURL: "https://fcm.test/",
            accessTokens: AccessTokenCache(transport: transport, clock: clock.unixClock, logger: Fixtures.logger),
            clock: clock.unixClock, logger: Fixtures.logger)
    }

    private func send(_ push: PushCore.Notification = Fixtures.fcmPush()) -> DeliveryResult? {
        awaitResult { done in client.send(push, app: Fixtures.fcmApp(), completion: done) }
    }

    private static func error(_ code: Int, _ status: String, errorCode: String? = nil, message: String = "m") -> String {
        let details = errorCode.map {
            #", "details": [{"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": "\#($0)"}]"#
        } ?? ""
        return #"{"error": {"code": \#(code), "message": "\#(message)", "status": "\#(status)"\#(details)}}"#
    }

    func testRequestURLHeadersAndBody() throws {
        transport.preload("fcm.test", status: 200, body: #"{"name":"projects/pushgate-test/messages/0:123"}"#)
        XCTAssertEqual(send(), .delivered(id: "projects/pushgate-test/messages/0:123"))
        let request = try XCTUnwrap(transport.requests(containing: "fcm.test").first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.url, sendURL)
        XCTAssertEqual(request.header("authorization"), "Bearer ya29.first")
        XCTAssertEqual(request.header("content-type"), "application/json; charset=UTF-8")
        XCTAssertEqual(
            String(decoding: request.body, as: UTF8.self),
            #"{"message":{"android":{"priority":"high"},"data":{"call_id":"42"},"token":"fcm-token-AAAA:bbbb_cccc-1234"}}"#)
    }

    func testTheTokenRequestIsAJWTBearerGrantSignedByTheServiceAccount() throws {
        transport.preload("fcm.test", status: 200, body: "{}")
        _ = send()
        let request = try XCTUnwrap(transport.requests(containing: "oauth.test").first)
        XCTAssertEqual(request.url, "https://oauth.test/token")
        XCTAssertEqual(request.header("content-type"), "application/x-www-form-urlencoded")
        let form = String(decoding: request.body, as: UTF8.self)
        let prefix = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
        XCTAssertTrue(form.hasPrefix(prefix), form)
        let assertion = String(form.dropFirst(prefix.count))
        XCTAssertTrue(try JWT.verify(assertion, publicKeyPEM: TestKeys.serviceAccountPublicKey))
        let decoded = try JWT.decode(assertion)
        XCTAssertEqual(decoded.header["alg"], .string("RS256"))
        XCTAssertEqual(decoded.header["kid"], .string("test-key-1"))
        XCTAssertEqual(decoded.claims["iss"], .string("pushgate@pushgate-test.iam.gserviceaccount.com"))
        XCTAssertEqual(decoded.claims["scope"], .string("https://www.googleapis.com/auth/firebase.messaging"))
        XCTAssertEqual(decoded.claims["aud"], .string("https://oauth.test/token"))
        XCTAssertEqual(decoded.claims["iat"], .number(Double(clock.now)))
        XCTAssertEqual(decoded.claims["exp"], .number(Double(clock.now + 3600)))
    }

    func testTheMessageTokenWinsOverTargetsInTheFields() throws {
        transport.preload("fcm.test", status: 200, body: "{}")
        let push = PushCore.Notification(
            appID: AppID("com.example.android")!, token: Fixtures.fcmToken,
            fcm: FCMMessage(fields: ["topic": .string("news"), "token": .string("other")]))
        _ = send(push)
        let body = try XCTUnwrap(transport.requests(containing: "fcm.test").first).body
        XCTAssertEqual(String(decoding: body, as: UTF8.self), #"{"message":{"token":"fcm-token-AAAA:bbbb_cccc-1234"}}"#)
    }

    func testErrorsMapToResults() {
        let retryAfter = [HTTPHeader("retry-after", "60")]
        let table: [(FakeTransport.Reply, DeliveryResult, String)] = [
            (.response(404, body: Self.error(404, "NOT_FOUND", errorCode: "UNREGISTERED", message: "Requested entity was not found.")),
             .deadToken(reason: "UNREGISTERED: Requested entity was not found.", since: nil), "UNREGISTERED"),
            (.response(404, body: ""), .deadToken(reason: "HTTP 404", since: nil), "any 404"),
            (.response(403, body: Self.error(403, "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH")),
             .deadToken(reason: "SENDER_ID_MISMATCH: m", since: nil), "SENDER_ID_MISMATCH"),
            (.response(400, body: Self.error(400, "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT")),
             .rejected(status: 400, reason: "INVALID_ARGUMENT: m"), "INVALID_ARGUMENT keeps the token"),
            (.response(400, body: Self.error(400, "INVALID_ARGUMENT")),
             .rejected(status: 400, reason: "INVALID_ARGUMENT: m"), "INVALID_ARGUMENT without details"),
            (.response(429, headers: retryAfter, body: Self.error(429, "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED")),
             .retryLater(reason: "QUOTA_EXCEEDED: m", afterSeconds: 60), "QUOTA_EXCEEDED"),
            (.response(503, headers: retryAfter, body: Self.error(503, "UNAVAILABLE", errorCode: "UNAVAILABLE")),
             .retryLater(reason: "UNAVAILABLE: m", afterSeconds: 60), "UNAVAILABLE"),
            (.response(500, body: Self.error(500, "INTERNAL", errorCode: "INTERNAL")),
             .retryLater(reason: "INTERNAL: m", afterSeconds: nil), "INTERNAL"),
            (.response(502, body: "<html>"), .retryLater(reason: "HTTP 502", afterSeconds: nil), "any 5xx"),
            (.response(401, body: Self.error(401, "UNAUTHENTICATED", errorCode: "THIRD_PARTY_AUTH_ERROR")),
             .rejected(status: 401, reason: "THIRD_PARTY_AUTH_ERROR: m"), "THIRD_PARTY_AUTH_ERROR is not our token"),
            (.response(403, body: Self.error(403, "PERMISSION_DENIED")),
             .rejected(status: 403, reason: "PERMISSION_DENIED: m"), "other"),
            (.failure(.connectionLost("reset")), .retryLater(reason: "FCM connection lost: reset", afterSeconds: nil), "reset"),
        ]
        for (reply, expected, name) in table {
            transport.preload("fcm.test", reply)
            XCTAssertEqual(send(), expected, name)
        }
        XCTAssertEqual(transport.requests(containing: "oauth.test").count, 1, "one access token for all")
    }

    func testUnauthenticatedRefreshesTheAccessTokenOnceAndRetries() throws {
        transport.preload(
            "oauth.test", .response(200, body: #"{"access_token":"ya29.first","expires_in":3599}"#),
            .response(200, body: #"{"access_token":"ya29.second","expires_in":3599}"#))
        transport.preload("fcm.test", .response(401, body: Self.error(401, "UNAUTHENTICATED")), .response(200, body: "{}"))
        XCTAssertEqual(send(), .delivered(id: nil))
        XCTAssertEqual(
            transport.requests(containing: "fcm.test").map { $0.header("authorization") },
            ["Bearer ya29.first", "Bearer ya29.second"])
        XCTAssertEqual(transport.requests(containing: "oauth.test").count, 2)
    }

    func testASecondUnauthenticatedIsRejected() {
        transport.preload("fcm.test", status: 401, body: Self.error(401, "UNAUTHENTICATED"))
        XCTAssertEqual(send(), .rejected(status: 401, reason: "UNAUTHENTICATED: m"))
        XCTAssertEqual(transport.requests(containing: "fcm.test").count, 2)
    }

    func testTokenEndpointFailures() {
        let cases: [(FakeTransport.Reply, DeliveryResult)] = [
            (.response(400, body: #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#),
             .rejected(status: 400, reason: "OAuth token endpoint refused the service account (400): invalid_grant: Invalid JWT Signature.")),
            (.response(503, headers: [HTTPHeader("retry-after", "7")]),
             .retryLater(reason: "OAuth token endpoint unavailable: HTTP 503", afterSeconds: 7)),
            (.failure(.timeout("slow")), .retryLater(reason: "OAuth token endpoint unavailable: timed out: slow", afterSeconds: nil)),
        ]
        for (reply, expected) in cases {
            transport = FakeTransport()
            transport.preload("oauth.test", reply)
            client = makeClient()
            XCTAssertEqual(send(), expected)
            XCTAssertTrue(transport.requests(containing: "fcm.test").isEmpty)
        }
    }

    func testPushesThatCannotGoToFCMAreRejectedWithoutSending() {
        guard case .rejected(400, _)? = send(Fixtures.fcmPush(token: DeviceToken(bytes: [0, 1, 2, 0xff]))) else {
            return XCTFail("binary token")
        }
        guard case .rejected(400, _)? = send(PushCore.Notification(appID: AppID("com.example.android")!, token: Fixtures.fcmToken))
        else { return XCTFail("no FCM message") }
        XCTAssertTrue(transport.requests.isEmpty)
    }
}
