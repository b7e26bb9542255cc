import Foundation
import MockUpstream
import PushCrypto
import XCTest

/// messages:send: authentication, message checks, scripted per-token errors in Google's shape.
final class FCMSendTests: XCTestCase {
    private var fcm: MockFCM!
    private var accessToken = ""

    override func setUpWithError() throws {
        fcm = try startFCM()
        accessToken = try fcm.accessToken()
    }

    override func tearDown() {
        fcm.shutdown()
    }

    func testTokenExchangeThenSend() throws {
        let response = try fcm.send(message(token: "device-a"), accessToken: accessToken)
        XCTAssertEqual(response.status, 200, response.body)
        let name = try XCTUnwrap(response.json?["name"] as? String)
        XCTAssertTrue(name.hasPrefix("projects/pushgate-test/messages/"), name)

        let recorded = try XCTUnwrap(fcm.sendRequests.first)
        XCTAssertEqual(recorded.deviceToken, "device-a")
        XCTAssertEqual(recorded.auth, .accessToken(clientEmail: MockFixtures.serviceAccountEmail))
        XCTAssertEqual(
            recorded.bodyJSON?.objectValue?["message"]?.objectValue?["data"]?.objectValue?["kind"], .string("call"))
        XCTAssertEqual(recorded.outcome, .answered(status: 200, reason: nil))
        XCTAssertEqual(try fcm.send(message(), accessToken: accessToken, http1: true).status, 200, "HTTP/1.1 too")
    }

    func testValidateOnlyAnswersAFakeName() throws {
        let response = try fcm.send(
            #"{"validate_only":true,"message":{"token":"t","data":{}}}"#, accessToken: accessToken)
        XCTAssertEqual(response.json?["name"] as? String, "projects/pushgate-test/messages/fake_message_id")
    }

    func testAuthentication() throws {
        let missing = try fcm.send(message(), accessToken: nil)
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(missing.googleError?["status"] as? String, "UNAUTHENTICATED")
        XCTAssertEqual(try fcm.send(message(), accessToken: "ya29.forged").status, 401)

        fcm.expireAccessTokens()
        let expired = try fcm.send(message(), accessToken: accessToken)
        XCTAssertEqual(expired.status, 401)
        XCTAssertEqual(expired.googleError?["code"] as? Int, 401)
        XCTAssertNotNil(expired.headers["www-authenticate"])
        XCTAssertEqual(try fcm.send(message(), accessToken: fcm.accessToken()).status, 200, "a refreshed token works")
    }

    func testWrongProject() throws {
        let response = try fcm.send(
            message(), accessToken: accessToken, url: fcm.baseURL + "/v1/projects/someone-else/messages:send")
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(response.googleError?["status"] as? String, "PERMISSION_DENIED")
        XCTAssertEqual(
            try fcm.send(message(), accessToken: accessToken, url: fcm.baseURL + "/v1/projects/x/nothing").status, 404)
    }

    func testTokenWithoutMessagingScopeCannotSend() throws {
        let assertion = try fcm.serviceAccount().assertion(
            scope: "https://www.googleapis.com/auth/userinfo.email", issuedAt: Int(Date().timeIntervalSince1970))
        let token = try XCTUnwrap(try fcm.requestToken(assertion: assertion).json?["access_token"] as? String)
        let response = try fcm.send(message(), accessToken: token)
        XCTAssertEqual(response.status, 403)
        XCTAssertEqual(response.googleError?["message"] as? String, "Request had insufficient authentication scopes.")
    }

    func testMessageChecks() throws {
        func assertInvalid(_ body: String, file: StaticString = #filePath, line: UInt = #line) throws {
            let response = try fcm.send(body, accessToken: accessToken)
            XCTAssertEqual(response.status, 400, response.body, file: file, line: line)
            XCTAssertEqual(response.googleError?["status"] as? String, "INVALID_ARGUMENT", file: file, line: line)
            XCTAssertEqual(response.fcmErrorCode, "INVALID_ARGUMENT", file: file, line: line)
        }
        try assertInvalid(message(data: #"{"count":12}"#))
        try assertInvalid(#"{"message":{"data":{"a":"b"}}}"#)
        try assertInvalid(#"{"message":{"token":"t","topic":"news"}}"#)
        try assertInvalid("not json")
        try assertInvalid(#"{"token":"t"}"#)

        let numeric = try fcm.send(message(data: #"{"count":12}"#), accessToken: accessToken)
        XCTAssertEqual(
            numeric.googleError?["message"] as? String, "Invalid value at 'message.data[0].value' (TYPE_STRING), 12")
        XCTAssertEqual(
            try fcm.send(#"{"message":{"topic":"news","notification":{"title":"t"}}}"#, accessToken: accessToken)
                .status, 200)
    }

    /// `message.android`'s delivery controls as Google's parser reads them.
    func testAndroidControls() throws {
        func send(_ android: String) throws -> CurlResponse {
            try fcm.send(#"{"message":{"token":"t","android":\#(android)}}"#, accessToken: accessToken)
        }
        for accepted in [
            #"{"ttl":"3600s","collapse_key":"score","priority":"HIGH"}"#, #"{"ttl":"0s","priority":"NORMAL"}"#,
            #"{"ttl":"0.5s","priority":"high"}"#, #"{"restricted_package_name":"com.x"}"#,
        ] {
            XCTAssertEqual(try send(accepted).status, 200, accepted)
        }
        let cases: [(String, String)] = [
            (#"{"ttl":3600}"#, "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), 3600"),
            (#"{"ttl":"3600"}"#, "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"3600\""),
            (#"{"ttl":"-1s"}"#, "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"-1s\""),
            (#"{"ttl":"1.s"}"#, "Invalid value at 'message.android.ttl' (type.googleapis.com/google.protobuf.Duration), \"1.s\""),
            (
                #"{"priority":"urgent"}"#,
                "Invalid value at 'message.android.priority' (type.googleapis.com/google.firebase.fcm.v1.AndroidMessagePriority), \"urgent\""
            ),
            (#"{"collapse_key":5}"#, "Invalid value at 'message.android.collapse_key' (TYPE_STRING), 5"),
            (#""fast""#, "Invalid value at 'message.android' (type.googleapis.com/google.firebase.fcm.v1.AndroidConfig)"),
        ]
        for (android, message) in cases {
            let response = try send(android)
            XCTAssertEqual(response.status, 400, android)
            XCTAssertEqual(response.fcmErrorCode, "INVALID_ARGUMENT", android)
            XCTAssertEqual(response.googleError?["message"] as? String, message)
        }
    }

    func testScriptedTokenErrors() throws {
        let cases: [(FCMTokenOutcome, Int, String)] = [
            (.unregistered, 404, "NOT_FOUND"),
            (.senderIDMismatch, 403, "PERMISSION_DENIED"),
            (.invalidArgument, 400, "INVALID_ARGUMENT"),
            (.quotaExceeded(retryAfter: 30), 429, "RESOURCE_EXHAUSTED"),
            (.unavailable(), 503, "UNAVAILABLE"),
            (.internal, 500, "INTERNAL"),
        ]
        for (index, (outcome, status, canonical)) in cases.enumerated() {
            let token = "scripted-\(index)"
            fcm.setOutcome(outcome, forToken: token)
            let response = try fcm.send(message(token: token), accessToken: accessToken)
            XCTAssertEqual(response.status, status, "\(outcome)")
            XCTAssertEqual(response.googleError?["code"] as? Int, status)
            XCTAssertEqual(response.googleError?["status"] as? String, canonical)
            XCTAssertEqual(response.fcmErrorCode, outcome.errorCode.rawValue)
            XCTAssertEqual(response.headers["retry-after"], outcome.retryAfter.map(String.init))
        }
        XCTAssertEqual(fcm.sendRequests.last?.outcome, .answered(status: 500, reason: "INTERNAL"))
    }

    func testInjectedFaults() throws {
        fcm.inject(.status(503, reason: "UNAVAILABLE", retryAfter: 12))
        let unavailable = try fcm.send(message(), accessToken: accessToken)
        XCTAssertEqual(unavailable.status, 503)
        XCTAssertEqual(unavailable.headers["retry-after"], "12")
        XCTAssertEqual(unavailable.fcmErrorCode, "UNAVAILABLE")
        XCTAssertEqual(unavailable.googleError?["status"] as? String, "UNAVAILABLE")

        fcm.inject(.resetConnection, forToken: "doomed", times: 1)
        let reset = try fcm.send(message(token: "doomed"), accessToken: accessToken)
        XCTAssertEqual(reset.status, 0)
        XCTAssertNotEqual(reset.exitCode, 0)
        XCTAssertEqual(fcm.log.counters.connectionResets, 1)

        fcm.inject(.delay(.milliseconds(500)))
        let start = Date()
        XCTAssertEqual(try fcm.send(message(), accessToken: accessToken).status, 200)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.5)
    }
}
