import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

/// Request-scoped logs through the real nginx and `pushgate serve`: every line a request
/// causes carries nginx's `$request_id`, which nginx also returns to the caller in
/// `X-Request-Id`, and no line carries a whole token.
final class RequestLogIntegrationTests: MockUpstreamsTestCase, RunsOnPostgreSQL {
    static let app = "com.example.softphone"
    static let selector = "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"
    static let deadHex = "51d97df57d8914fd5b5b04b9811ff019e2c4d6198007608ca6bd448f4c3192b6"

    override func setUpWithError() throws {
        try super.setUpWithError()
        // At debug: a plain success's request line is written only there.
        try startPushgate(environment: ["PUSHGATE_LOG_LEVEL": "debug"])
        try pushgate.addMockAPNsApp(id: Self.app, ["--topic", Self.app])
    }

    private func send(_ hex: String) throws -> HTTPClient.Response {
        try pushgate.client.post(
            "/pnm2/send", contentType: "application/json",
            body: #"{"verb": "NotifyGenericTextMessage", "AppId": "\#(Self.app)", "DeviceToken": "\#(hex)", "Message": "hi"}"#)
    }

    /// The log lines that contain `text`.
    private func lines(containing text: String) -> [Substring] {
        pushgate.serveLog.split(separator: "\n").filter { $0.contains(text) }
    }

    func testAPruneIsLoggedWithTheRequestIdNginxGaveTheRequest() throws {
        let token = DeviceToken.fromHex(Self.deadHex)!.base64.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let reported = try pushgate.client.get("/token/?selector=\(Self.selector)&token_msgs=\(token)&appid_msgs=\(Self.app)")
        XCTAssertEqual(reported.status, 200, reported.text)
        let reportID = try XCTUnwrap(reported.header("X-Request-Id"))

        apns.setOutcome(.unregistered(since: Int64(Date().timeIntervalSince1970 * 1000) + 60_000), forToken: Self.deadHex)
        let response = try send(Self.deadHex)
        XCTAssertTrue(response.text.hasPrefix(#"{"code": 404"#), response.text)
        let id = try XCTUnwrap(response.header("X-Request-Id"), "nginx returns its $request_id")
        XCTAssertEqual(id.count, 32, id)
        XCTAssertNotEqual(id, reportID, "each request has its own id")

        try pushgate.waitForServeLog(containing: "POST /pnm2/send 200")
        let pruned = lines(containing: "pruned device")
        XCTAssertEqual(pruned.count, 1, pushgate.serveLog)
        XCTAssertTrue(pruned.first?.contains("request-id=\(id)") == true, "\(pruned)")
        XCTAssertTrue(
            lines(containing: "POST /pnm2/send 200").first?.contains("request-id=\(id)") == true, pushgate.serveLog)
        XCTAssertTrue(lines(containing: "GET /token/ 200").first?.contains("request-id=\(reportID)") == true)
        XCTAssertFalse(pushgate.serveLog.contains(Self.deadHex), "tokens are shortened in the log")
    }

    func testARetryAndAnUpstreamFailureOfADirectSendCarryTheRequestId() throws {
        let flaky = String(repeating: "e5", count: 32)
        apns.inject(.status(503, reason: "ServiceUnavailable"), forToken: flaky)
        let response = try send(flaky)
        XCTAssertTrue(response.text.hasPrefix(#"{"code": 500"#), response.text)
        let id = try XCTUnwrap(response.header("X-Request-Id"))
        try pushgate.waitForServeLog(containing: "POST /pnm2/send 200")
        let retry = lines(containing: "retrying 1 of 1 pushes")
        XCTAssertEqual(retry.count, 1, pushgate.serveLog)
        XCTAssertTrue(retry.first?.contains("request-id=\(id)") == true, "\(retry)")
        let failed = lines(containing: "not sent after its retry")
        XCTAssertEqual(failed.count, 1, pushgate.serveLog)
        XCTAssertTrue(failed.first?.contains("request-id=\(id)") == true, "\(failed)")
        XCTAssertTrue(failed.first?.contains("ServiceUnavailable") == true, "\(failed)")
        XCTAssertFalse(pushgate.serveLog.contains(flaky), "tokens are shortened in the log")
    }
}

/// At the default level (`info`) a plain success leaves its line to nginx's access log, and a
/// refusal is still logged by `serve`, with its reason and the request id.
final class DefaultRequestLogIntegrationTests: XCTestCase {
    func testAtInfoARefusalIsLoggedAndAPlainSuccessIsNot() throws {
        let pushgate = try PushgateInstance()
        try pushgate.start()
        defer { pushgate.stop() }
        let selector = RequestLogIntegrationTests.selector
        let reported = try pushgate.client.get("/token/?selector=\(selector)&token_msgs=dG9rZW4&appid_msgs=com.example.a")
        XCTAssertEqual(reported.status, 200, reported.text)
        let reportID = try XCTUnwrap(reported.header("X-Request-Id"))

        for attempt in 1...2 {
            let refused = try pushgate.client.get("/token/?token_msgs=dG9rZW4&appid_msgs=com.example.a")
            XCTAssertEqual(refused.status, 400, refused.text)
            let refusedID = try XCTUnwrap(refused.header("X-Request-Id"))
            try pushgate.waitForServeLog(containing: "request-id=\(refusedID)")
            let line = pushgate.serveLog.split(separator: "\n").first { $0.contains("request-id=\(refusedID)") }
            XCTAssertTrue(line?.contains(" info ") == true && line?.contains("GET /token/ 400") == true, "\(attempt): \(line ?? "")")
        }
        XCTAssertFalse(pushgate.serveLog.contains("request-id=\(reportID)"), pushgate.serveLog)
        XCTAssertFalse(pushgate.serveLog.contains("GET /token/ 200"), pushgate.serveLog)
    }
}
