import Foundation
import PushCore
import PushTesting
import XCTest

/// Paths nginx would normalise (`.`/`..` segments, `//`, `%2F`, `%2E`), sent as they are through
/// the real nginx to `pushgate serve`: each is refused with 400 in the shape of its dialect, and
/// nothing is stored or deleted. Before, `/token/..` stored an account named `..` through
/// nginx's `location /`, which has no rate limit, and `/removeAccount/..` deleted one.
/// Runs on SQLite, and on PostgreSQL when PUSHGATE_TEST_DATABASE_URL is set.
final class PathNormalisationIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    static let selector = "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"
    static let token = "Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D"
    static let app = "com.cloudsoftphone.app"

    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        pushgate = try PushgateInstance()
        try pushgate.start()
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
    }

    private var report: String { "selector=\(Self.selector)&token_msgs=\(Self.token)&appid_msgs=\(Self.app)" }

    /// (owner username, selector) of every stored Acrobits account.
    private func accounts() throws -> [String] {
        try pushgate.storedDevices().flatMap { device in
            (device["owners"] as? [[String: Any]] ?? []).map { "\($0["username"] ?? "-")|\($0["selector"] ?? "-")" }
        }
    }

    private func assertText400(_ response: HTTPClient.Response, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(response.status, 400, response.text, file: file, line: line)
        XCTAssertTrue(response.text.contains("the path has"), response.text, file: file, line: line)
    }

    func testTheIssuesTokenReporterPathsAnswer400AndStoreNothing() throws {
        for target in [
            "/token/..?\(report)", "/token/./?\(report)", "/token/%2e%2e/?\(report)", "/token/%2E%2E?\(report)",
            "/token//?\(report)", "/token/alice%2Fbob/?\(report)",
        ] {
            assertText400(try pushgate.client.get(target))
        }
        for target in [
            "/pushToken/../x/y/z", "/pushToken/./sel/\(Self.token)&appid=\(Self.app)",
            "/pushToken/alice/sel/abc/../../..&appid=\(Self.app)",
        ] {
            assertText400(try pushgate.client.get(target))
        }
        XCTAssertEqual(try accounts(), [], "nothing stored")
        // The same report at a normal path is stored: the refusals above were the paths'.
        XCTAssertEqual(try pushgate.client.get("/token/?\(report)").status, 200)
        XCTAssertEqual(try accounts().count, 1)
    }

    /// A base64 token's `/`, `//` and `%2F` in the `/pushToken` style stay welcome.
    func testAPathStyleTokenKeepsItsSlashes() throws {
        // The base64 of 32 bytes, 01 02 03 ff ff ff 07…: `////` in the middle.
        let base64 = "AQID////BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="
        for (selector, written) in [
            ("SelectorOne12345", base64), ("SelectorTwo12345", "AQID//%2F/BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc="),
        ] {
            let response = try pushgate.client.get("/pushToken/alice/\(selector)/\(written)&appid=\(Self.app)")
            XCTAssertEqual(response.status, 200, response.text)
        }
        XCTAssertEqual(Set(try accounts()), ["alice|SelectorOne12345", "alice|SelectorTwo12345"])
        let reported = Set(try pushgate.storedDevices().compactMap { $0["reported_token"] as? String })
        XCTAssertEqual(reported, [base64], "both arrived whole")
    }

    func testRemoveAccountWithDotSegmentsDeletesNothing() throws {
        XCTAssertEqual(try pushgate.client.get("/token/?\(report)").status, 200)
        for target in ["/removeAccount/..?selector=\(Self.selector)", "/removeAccount/%2e?selector=\(Self.selector)"] {
            assertText400(try pushgate.client.get(target))
        }
        XCTAssertEqual(try accounts().count, 1, "still stored")
        XCTAssertEqual(try pushgate.client.get("/removeAccount/?selector=\(Self.selector)").status, 200)
        XCTAssertEqual(try accounts().count, 0)
    }

    /// Each dialect's own error shape, for the path it was sent to, or (where the raw path
    /// names no endpoint) for the one nginx's reading of it names.
    func testEveryDialectRefusesInItsOwnShape() throws {
        let cospace = try pushgate.client.get("/api/push/./")
        XCTAssertEqual(cospace.status, 400, cospace.text)
        XCTAssertEqual(try JSONValue.parse(cospace.body), .object(["status": .string("invalid-path")]))

        let beams = try pushgate.client.request("POST", "/client_api/v1/clients/../clients", body: Array("{}".utf8))
        XCTAssertEqual(beams.status, 400, beams.text)
        XCTAssertEqual(try JSONValue.parse(beams.body).objectValue?["error"], .string("Bad request"))

        let bridge = try pushgate.client.request("POST", "/push/notifications/..", body: Array("{}".utf8))
        XCTAssertEqual(bridge.status, 400, bridge.text)
        XCTAssertNotNil(try JSONValue.parse(bridge.body).objectValue?["response"]?.objectValue?["error"], bridge.text)

        for target in ["/pnm2/./send", "/x/../pnm2/send", "/token%2F..%2Fpnm2/send"] {
            let pnm2 = try pushgate.client.request("POST", target, body: Array("{}".utf8))
            XCTAssertEqual(pnm2.status, 400, "\(target): \(pnm2.text)")
            let body = try JSONValue.parse(pnm2.body).objectValue
            XCTAssertEqual(body?["code"], .number(400), "\(target): \(pnm2.text)")
        }
        XCTAssertEqual(try pushgate.client.get("/healthz").status, 200)
        XCTAssertEqual(try pushgate.client.get("/./healthz").status, 400)
    }

    /// nginx ends `$uri` at a raw "#", so the request would reach the endpoint its path names
    /// before the "#" (it used to: `…/instances/x` answered 405). Refused as a bad path.
    func testARawNumberSignInThePathIsRefused() throws {
        let beams = try pushgate.client.request(
            "POST", "/device_api/v1/instances/x#/devices/fcm", headers: ["Content-Type": "application/json"],
            body: Array(#"{"token": "t"}"#.utf8))
        XCTAssertEqual(beams.status, 400, beams.text)
        XCTAssertEqual(try JSONValue.parse(beams.body).objectValue?["error"], .string("Bad request"), beams.text)
        XCTAssertTrue(beams.text.contains("raw #"), beams.text)
        assertText400(try pushgate.client.get("/token/alice#/?\(report)"))
        XCTAssertEqual(try accounts(), [], "nothing stored")
    }
}
