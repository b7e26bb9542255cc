import Foundation
import PushTesting
import XCTest

/// Tokens, Beams client ids and passwords reported through the real nginx never reach
/// `pushgate serve`'s log or nginx's access log whole: both logs are searched for them after
/// reporting them every way the dialects allow.
final class LogRedactionIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    static let selector = "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"
    static let base64Token = "Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY="
    static let fcmToken = "dQw4w9WgXcQ:APA91bG9aqWvmnxnYBZWG9hxvtkgzTXSopfiufzmc6tP3Kb"
    static let password = "hunter2-secret-password"
    static let clientID = "6f1c0d2e-1a2b-4c3d-8e9f-0a1b2c3d4e5f"

    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        // At debug, so that a success's request line is written too.
        pushgate = try PushgateInstance(environment: ["PUSHGATE_LOG_LEVEL": "debug"])
        try pushgate.start()
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
    }

    private var accessLog: String {
        let url = pushgate.directory.appendingPathComponent("nginx/logs/access.log")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    func testNeitherLogCarriesAWholeTokenClientIDOrPassword() throws {
        let encodedToken = Self.base64Token.replacingOccurrences(of: "/", with: "%2F")
            .replacingOccurrences(of: "=", with: "%3D")
        let pathStyle = try pushgate.client.get(
            "/pushToken/alice/\(Self.selector)/\(Self.base64Token)&appid=com.example.app&password=\(Self.password)")
        XCTAssertEqual(pathStyle.status, 200, pathStyle.text)
        let pathStyleEncoded = try pushgate.client.get(
            "/pushToken/bob/SelectorTwo12345/\(encodedToken)&appid=com.example.app")
        XCTAssertEqual(pathStyleEncoded.status, 200, pathStyleEncoded.text)
        let queryStyle = try pushgate.client.get(
            "/token/carol/?selector=SelectorThree123&token_msgs=\(Self.fcmToken)&appid_msgs=com.example.fcm&password=\(Self.password)"
        )
        XCTAssertEqual(queryStyle.status, 200, queryStyle.text)
        let beams = try pushgate.client.request(
            "PUT", "/client_api/v1/clients/\(Self.clientID)/token",
            headers: ["Content-Type": "application/json"], body: Array(#"{"app_key": "x", "token": "y"}"#.utf8))
        XCTAssertNotEqual(beams.status, 0)
        XCTAssertEqual(try pushgate.storedDevices().count, 2, "both tokens were stored")

        try pushgate.waitForServeLog(containing: "/client_api/v1/clients/6f1c0d2e…")
        let logs = ["serve": pushgate.serveLog, "nginx access": accessLog]
        for (name, log) in logs {
            XCTAssertFalse(log.isEmpty, "\(name) log")
            for secret in [
                Self.base64Token, encodedToken, "wGeLE1hmAB2CMpr1Ej0wxkrY", Self.fcmToken, "APA91bG9aqWvmnxn",
                Self.password,
                Self.clientID, Self.selector,
            ] {
                XCTAssertFalse(log.contains(secret), "the \(name) log carries \(secret):\n\(log)")
            }
        }
        // What is left tells the lines apart: the first 8 characters and the route. nginx
        // writes `...` (it would escape the bytes of `…`).
        XCTAssertTrue(pushgate.serveLog.contains("GET /pushToken/alice/12869E0E… 200"), pushgate.serveLog)
        XCTAssertTrue(pushgate.serveLog.contains("GET /pushToken/bob/SelectorTwo12345/Udl99X2J… 200"), pushgate.serveLog)
        XCTAssertTrue(accessLog.contains("GET /pushToken/alice/12869E0E... HTTP/1.1"), accessLog)
        XCTAssertTrue(accessLog.contains("PUT /client_api/v1/clients/6f1c0d2e... HTTP/1.1"), accessLog)
        XCTAssertTrue(accessLog.contains("GET /token/carol/ HTTP/1.1"), accessLog)
    }
}
