import Foundation
import PushTesting
import XCTest

/// The Push Token Reporter through the real nginx and `pushgate serve`, checked through the CLI.
final class TokenReporterIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    static let selector = "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"
    static let callsHex = "51d97df57d8914fd5b5b04b9811ff019e2c4d6198007608ca6bd448f4c3192b6"
    static let msgsText = "APA91bG9aqWvmnxnYBZWG9hxvtkgzTXSopfiufzmc6tP3Kb"

    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        // At debug, so that a report's request line is written and can be checked for secrets.
        pushgate = try PushgateInstance(environment: ["PUSHGATE_LOG_LEVEL": "debug"])
        try pushgate.start()
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
    }

    /// selector/channel → device, from `pushgate tokens list --json`.
    func accounts() throws -> [String: [String: Any]] {
        var result: [String: [String: Any]] = [:]
        for device in try pushgate.storedDevices() {
            for owner in device["owners"] as? [[String: Any]] ?? [] {
                result["\(owner["selector"] ?? "")/\(owner["channel"] ?? "")"] = device.merging(owner) { first, _ in first }
            }
        }
        return result
    }

    func assertDocumentsAccountStored(username: String = "johndow", file: StaticString = #filePath, line: UInt = #line) throws {
        let stored = try accounts()
        XCTAssertEqual(stored.count, 2, "\(stored)", file: file, line: line)
        let calls = try XCTUnwrap(stored["\(Self.selector)/calls"], file: file, line: line)
        XCTAssertEqual(calls["app_id"] as? String, "com.cloudsoftphone.app.pushkit", file: file, line: line)
        XCTAssertEqual(calls["token"] as? String, Self.callsHex, file: file, line: line)
        XCTAssertEqual(calls["reported_token"] as? String, "Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY=", file: file, line: line)
        XCTAssertEqual(calls["username"] as? String, username, file: file, line: line)
        let msgs = try XCTUnwrap(stored["\(Self.selector)/msgs"], file: file, line: line)
        XCTAssertEqual(msgs["app_id"] as? String, "com.cloudsoftphone.app", file: file, line: line)
        XCTAssertEqual(msgs["token"] as? String, Self.msgsText, file: file, line: line)
    }

    func testTheDocumentsGETExampleByteForByte() throws {
        let raw = "GET /token/?username=johndow&password=12345678&selector=12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14&token_msgs=QVBBOTFiRzlhcVd2bW54bllCWldHOWh4dnRrZ3pUWFNvcGZpdWZ6bWM2dFAzS2J&appid_msgs=com.cloudsoftphone.app&token_calls=Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&appid_calls=com.cloudsoftphone.app.pushkit HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\nCache-Control: max-age=0\r\nUser-Agent: CloudSoftphone/1.5.6\r\n\r\n"
        let response = try pushgate.client.send(Array(raw.utf8))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.body, [])
        XCTAssertNil(response.header("Content-Type"), "the simplest success: no content type")
        try assertDocumentsAccountStored()
        try pushgate.waitForServeLog(containing: "GET /token/ 200")
        XCTAssertFalse(pushgate.serveLog.contains("12345678"), "the query (with its password) is never logged")
    }

    func testTheDocumentsJSONExample() throws {
        // Headers as the document writes them; its Content-Length (183) does not match its own
        // 340-byte body, so the real length is sent.
        let body = """
            {
                "token_msgs"    : "QVBBOTFiRzlhcVd2bW54bllCWldHOWh4dnRrZ3pUWFNvcGZpdWZ6bWM2dFAzS2J",
                "appid_msgs"    : "com.cloudsoftphone.app",
                "token_calls"   : "Udl99X2JFP1bWwS5gR/wGeLE1hmAB2CMpr1Ej0wxkrY=",
                "appid_calls"   : "com.cloudsoftphone.app.pushkit",
                "selector"      : "12869E0E6E553673C54F29105A0647204C416A2A:7C3A0D14"
            }
            """
        let raw = "POST /token/johndow/ HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\nCache-Control: max-age=0\r\nUser-Agent: CloudSoftphone/1.5.6\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        let response = try pushgate.client.send(Array(raw.utf8))
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.body, [])
        try assertDocumentsAccountStored()
    }

    func testTheDocumentsFormPostData() throws {
        let body = "username=johndow&selector=\(Self.selector)&token_calls=Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&appid_calls=com.cloudsoftphone.app.pushkit&token_msgs=QVBBOTFiRzlhcVd2bW54bllCWldHOWh4dnRrZ3pUWFNvcGZpdWZ6bWM2dFAzS2J&appid_msgs=com.cloudsoftphone.app"
        let response = try pushgate.client.post("/token/", contentType: "application/x-www-form-urlencoded", body: body)
        XCTAssertEqual(response.status, 200, response.text)
        try assertDocumentsAccountStored()
    }

    func testThePathStyle() throws {
        let response = try pushgate.client.get(
            "/pushToken/johndow/\(Self.selector)/Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&appid=com.cloudsoftphone.app")
        XCTAssertEqual(response.status, 200, response.text)
        let msgs = try XCTUnwrap(try accounts()["\(Self.selector)/msgs"])
        XCTAssertEqual(msgs["token"] as? String, Self.callsHex)
        XCTAssertEqual(msgs["username"] as? String, "johndow")
    }

    func testNullTokensEraseNothingAndANewTokenReplacesTheOld() throws {
        XCTAssertEqual(try pushgate.client.get(documentQuery()).status, 200)
        let nulls = "/token/?username=johndow&selector=\(Self.selector)&token_msgs=(null)&appid_msgs=com.cloudsoftphone.app&token_calls=&appid_calls=com.cloudsoftphone.app.pushkit"
        XCTAssertEqual(try pushgate.client.get(nulls).status, 200)
        try assertDocumentsAccountStored()

        let replacement = Data(repeating: 0xAB, count: 32).base64EncodedString()
        let query = "/token/?selector=\(Self.selector)&token_calls=\(replacement.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&appid_calls=com.cloudsoftphone.app.pushkit"
        XCTAssertEqual(try pushgate.client.get(query).status, 200)
        XCTAssertEqual(try accounts()["\(Self.selector)/calls"]?["token"] as? String, String(repeating: "ab", count: 32))
        XCTAssertEqual(try pushgate.storedDevices().count, 2, "the replaced device is gone")
    }

    func testAccountRemoval() throws {
        XCTAssertEqual(try pushgate.client.get(documentQuery()).status, 200)
        let response = try pushgate.client.post(
            "/removeAccount/", contentType: "application/x-www-form-urlencoded", body: "selector=\(Self.selector)")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(try pushgate.storedDevices().count, 0)
    }

    func testTheRegisteredPlatformIsResolvedAfterTheFact() throws {
        XCTAssertEqual(try pushgate.client.get(documentQuery()).status, 200)
        XCTAssertNil(try accounts()["\(Self.selector)/calls"]?["platform"] as? String)
        let key = PushgateInstance.repository.appendingPathComponent("Tests/PushCryptoTests/Fixtures/AuthKey_TEST123456.p8").path
        let added = try pushgate.cli([
            "apps", "add", "--id", "com.cloudsoftphone.app.pushkit", "--platform", "apns", "--team-id", "ABCDE12345",
            "--key-id", "KEY1234567", "--key-file", key, "--topic", "com.cloudsoftphone.app.voip", "--push-type", "voip",
        ])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(try accounts()["\(Self.selector)/calls"]?["platform"] as? String, "apns")
        let list = try pushgate.cli(["tokens", "list"])
        XCTAssertTrue(list.stdout.contains("51d97df5…3192b6"), list.stdout)
        XCTAssertFalse(list.stdout.contains(Self.callsHex), "the text listing shortens tokens")
    }

    func testBadInputGetsAOneLineReasonAndChangesNothing() throws {
        XCTAssertEqual(try pushgate.client.get(documentQuery()).status, 200)
        let before = try pushgate.cli(["tokens", "list", "--json"]).stdout
        let client = pushgate.client
        let json = "application/json"
        let cases: [(HTTPClient.Response, Int, String)] = [
            (try client.get("/token/?token_msgs=QUJD&appid_msgs=a.b"), 400, "selector is required"),
            (try client.get("/token/?selector=\(Self.selector)&token_msgs=%%%"), 400, "malformed percent-encoding"),
            (try client.get("/token/?selector=\(Self.selector)&token_msgs=no*base64&appid_msgs=com.cloudsoftphone.app"), 400, "token_msgs is not a base64"),
            (try client.get("/token/?selector=\(Self.selector)&token_msgs=QUJDRA%3D%3D"), 400, "token_msgs was given without appid_msgs"),
            (try client.get("/token/?selector=\(Self.selector)&token_calls=\(String(repeating: "QUJD", count: 1100))&appid_calls=x.y"), 400, "token_calls is longer than"),
            (try client.get("/token/?selector=\(Self.selector)&username=%C3%28"), 400, "query string is not valid UTF-8"),
            (try client.post("/token/", contentType: json, body: "{\"selector\": "), 400, "body is not valid JSON"),
            (try client.post("/token/", contentType: json, body: "[\"selector\"]"), 400, "JSON body must be an object"),
            (try client.post("/token/", contentType: json, body: "{\"selector\": 12}"), 400, "selector must be a string"),
            (try client.post("/token/", contentType: json, body: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x22, 0x22, 0x7D]), 400, "body is not valid UTF-8"),
            (try client.post("/token/", contentType: "text/xml", body: "<selector/>"), 400, "unsupported content type text/xml"),
            (try client.request("PUT", "/token/?selector=x"), 405, "method PUT not allowed"),
            (try client.request("DELETE", "/pushToken/a/b/c"), 405, "method DELETE not allowed"),
            (try client.get("/nowhere"), 404, "no endpoint at /nowhere"),
            // The Account Removal Reporter reads its parameters the same way.
            (try client.get("/removeAccount/"), 400, "selector is required"),
            (try client.post("/removeAccount/", contentType: json, body: "{\"selector\": "), 400, "body is not valid JSON"),
            (try client.post("/removeAccount/", contentType: json, body: "{\"selector\": 12}"), 400, "selector must be a string"),
            (try client.post("/removeAccount/", contentType: json, body: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x22, 0x22, 0x7D]), 400, "body is not valid UTF-8"),
            (try client.post("/removeAccount/", contentType: "text/xml", body: "<selector/>"), 400, "unsupported content type text/xml"),
            (try client.request("PUT", "/removeAccount/?selector=\(Self.selector)"), 405, "method PUT not allowed"),
        ]
        for (response, status, message) in cases {
            XCTAssertEqual(response.status, status, response.text)
            XCTAssertTrue(response.text.hasPrefix(message), "expected \(message), got \(response.text)")
            XCTAssertEqual(response.text.filter { $0 == "\n" }.count, 1, "one line: \(response.text)")
            XCTAssertEqual(response.header("Content-Type"), "text/plain; charset=utf-8")
        }
        XCTAssertEqual(try pushgate.cli(["tokens", "list", "--json"]).stdout, before, "refused requests changed the store")
    }

    func testHugeBodiesAreRefusedWith413() throws {
        let before = try pushgate.cli(["tokens", "list", "--json"]).stdout
        // Over pushgate's limit: the reporter's own message, naming its own (smaller) limit.
        let overLimit = [UInt8](repeating: UInt8(ascii: "a"), count: 1_048_577)
        let response = try pushgate.client.post("/token/", contentType: "application/x-www-form-urlencoded", body: overLimit)
        XCTAssertEqual(response.status, 413)
        XCTAssertEqual(response.text, "body is larger than 16384 bytes\n")
        // Far over it: nginx refuses before pushgate sees it, still as one line of text.
        let huge = [UInt8](repeating: UInt8(ascii: "a"), count: 3_000_000)
        let refused = try pushgate.client.post("/token/", contentType: "application/json", body: huge)
        XCTAssertEqual(refused.status, 413)
        XCTAssertTrue(refused.text.contains("too large"), refused.text)
        XCTAssertEqual(try pushgate.cli(["tokens", "list", "--json"]).stdout, before)
    }

    /// 64 clients at once, reporting for overlapping selectors: every request succeeds, none
    /// sees `database is locked`, and the end state is one device per selector and channel.
    func testSixtyFourConcurrentReporters() throws {
        let port = pushgate.port
        let selectors = (0..<16).map { "SELECTOR-\($0):CAFE0000" }
        let failures = Failures()
        @Sendable func report(_ http: HTTPClient, _ selector: String, seed: UInt8) {
            let token = Data(repeating: seed, count: 32).base64EncodedString()
                .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let target = "/token/?selector=\(selector)&token_calls=\(token)&appid_calls=com.example.voip&token_msgs=\(token)&appid_msgs=com.example"
            do {
                let response = try http.get(target)
                if response.status != 200 { failures.add("\(response.status) \(response.text)") }
            } catch {
                failures.add("\(error)")
            }
        }
        // Phase one: overlapping reports with tokens that differ per client and round.
        DispatchQueue.concurrentPerform(iterations: 64) { client in
            let http = HTTPClient(port: port)
            for round in 0..<16 {
                report(http, selectors[(client + round) % selectors.count], seed: UInt8(truncatingIfNeeded: client * 31 + round + 100))
            }
        }
        // Phase two: still overlapping, but every report of a selector carries the same token,
        // so the end state is known whatever the interleaving.
        DispatchQueue.concurrentPerform(iterations: 64) { client in
            let http = HTTPClient(port: port)
            for round in 0..<4 {
                let index = (client + round) % selectors.count
                report(http, selectors[index], seed: UInt8(index))
            }
        }
        XCTAssertEqual(failures.all, [])
        XCTAssertFalse(pushgate.serveLog.contains("locked"), pushgate.serveLog)
        let stored = try accounts()
        for (index, selector) in selectors.enumerated() {
            for channel in ["calls", "msgs"] {
                XCTAssertEqual(stored["\(selector)/\(channel)"]?["token"] as? String, String(repeating: String(format: "%02x", index), count: 32), "\(selector)/\(channel)")
            }
        }
        XCTAssertEqual(stored.count, 32)
    }

    private func documentQuery() -> String {
        "/token/?username=johndow&password=12345678&selector=\(Self.selector)&token_msgs=QVBBOTFiRzlhcVd2bW54bllCWldHOWh4dnRrZ3pUWFNvcGZpdWZ6bWM2dFAzS2J&appid_msgs=com.cloudsoftphone.app&token_calls=Udl99X2JFP1bWwS5gR%2FwGeLE1hmAB2CMpr1Ej0wxkrY%3D&appid_calls=com.cloudsoftphone.app.pushkit"
    }
}

/// Failures collected from concurrent clients.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
}
