import Foundation
#if canImport(Glibc)
    import Glibc
#endif
import PushTesting
import XCTest

/// No whole device token, selector, password, Beams client id or sender key reaches a log that
/// nginx or `pushgate serve` writes, through the real nginx and serve, for requests each of
/// them answers and for those nginx refuses itself: a body over nginx's limit (413), the rate
/// limit's delays and refusals (429), and pushgate unreachable (502, with no socket file and
/// with one nobody listens on). nginx writes such events with the request line, query string
/// included, into its error log unless the template keeps them out.
final class NginxLogSecretsIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    static let selector = "4F3A9B0C1D2E3F405162738495A6B7C8D9E0F1A2:0B1C2D3E"
    static let fcmToken = "fcmTok3n:APA91bHsecretFloodToken_0123456789abcdefXYZ"
    static let base64Token = "c2VjcmV0LWFwbnMtdG9rZW4tZm9yLXRoZS1sb2ctdGVzdA=="
    static let password = "correct-horse-battery-staple-42"
    static let clientID = "9b2f6c1e-3d4a-4b5c-8d6e-7f8091a2b3c4"
    static let wrongKey = "wrongkey-0123456789abcdefghijklmn"
    static let app = "com.example.logsecrets"

    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        // At debug, so that serve's log has a line for every request, successes included.
        pushgate = try PushgateInstance(environment: ["PUSHGATE_LOG_LEVEL": "debug"])
        pushgate.adjustNginx = { prefix in
            try PushgateInstance.trustForwardedFor(prefix)
            try Self.delayTokenReportsAfterTwo(prefix)
        }
        try pushgate.start()
    }

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
    }

    /// The Token Reporter's limit made reachable in a dozen requests, with delays before its
    /// refusals: two at once, two more delayed, then 429 (the template answers its whole
    /// burst at once, `nodelay`, so that it never delays).
    static func delayTokenReportsAfterTwo(_ prefix: URL) throws {
        let site = prefix.appendingPathComponent("pushgate.conf")
        let text = try String(contentsOf: site, encoding: .utf8)
        let shipped = "    location /token {\n        limit_req zone=pushgate_clients burst=200 nodelay;\n"
        guard text.contains(shipped) else { throw PushgateInstance.Failure("the rendered site has no /token limit") }
        try text.replacingOccurrences(
            of: shipped, with: "    location /token {\n        limit_req zone=pushgate_clients burst=4 delay=2;\n"
        ).write(to: site, atomically: true, encoding: .utf8)
    }

    /// A Unix socket file at `path` that nobody accepts on: nginx's connect is refused.
    static func bindWithoutListening(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw PushgateInstance.Failure("bind \(path): errno \(errno)") }
        chmod(path, 0o666)
        return fd
    }

    func testNoLogCarriesAWholeTokenSelectorPasswordClientIDOrKey() throws {
        let added = try pushgate.cli(["keys", "add", "pbx"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let key = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let encodedToken = Self.base64Token.replacingOccurrences(of: "=", with: "%3D")
        let report =
            "/token/?selector=\(Self.selector)&token_msgs=\(Self.fcmToken)&appid_msgs=\(Self.app)&password=\(Self.password)"

        // Answered by serve: a report with a password in the query, a path-style report, a
        // Beams client id in the path, a push with a valid and one with a wrong sender key.
        XCTAssertEqual(try pushgate.client.get(report).status, 200)
        let pathStyle = try pushgate.client.get(
            "/pushToken/alice/\(Self.selector)/\(encodedToken)&appid=\(Self.app)&password=\(Self.password)")
        XCTAssertEqual(pathStyle.status, 200, pathStyle.text)
        let beams = try pushgate.client.request(
            "PUT", "/client_api/v1/clients/\(Self.clientID)/token",
            headers: ["Content-Type": "application/json"], body: Array(#"{"app_key": "x", "token": "y"}"#.utf8))
        XCTAssertNotEqual(beams.status, 0)
        for sender in [key, Self.wrongKey] {
            let push = try pushgate.client.post(
                "/pnm2/multisend", contentType: "application/json", body: "[null]",
                headers: ["Authorization": "Bearer \(sender)"])
            XCTAssertEqual(push.status, sender == key ? 200 : 401, push.text)
        }

        // nginx's own answers: the rate limit delays, then refuses, a phone's reports, sent
        // at once (one after another, each delay would pace the next).
        let client = pushgate.client
        let statuses = (0..<12).map { _ in ResultBox<Int>() }
        for box in statuses {
            Thread.detachNewThread {
                box.set((try? client.get(report, headers: ["X-Forwarded-For": "203.0.113.9"]).status) ?? 0)
            }
        }
        let limited = statuses.map { $0.wait(timeout: 30) ?? 0 }
        XCTAssertTrue(limited.contains(429), "\(limited)")
        XCTAssertEqual(limited.filter { $0 != 429 && $0 != 200 }, [], "\(limited)")
        // A body over nginx's limit (2 MiB here), tokens in the query.
        let large = try pushgate.client.post(
            report, contentType: "application/x-www-form-urlencoded",
            body: Array(repeating: UInt8(ascii: "x"), count: 3 << 20))
        XCTAssertEqual(large.status, 413, large.text)

        // pushgate unreachable: no socket file (nginx logs it at crit), then a socket file
        // nobody listens on (at error).
        try pushgate.waitForServeLog(containing: "/client_api/v1/clients/9b2f6c1e")
        pushgate.killServe()
        XCTAssertEqual(try pushgate.client.get(report).status, 502)
        let fd = try Self.bindWithoutListening(pushgate.socket)
        defer { close(fd) }
        XCTAssertEqual(try pushgate.client.get(report).status, 502)
        XCTAssertEqual(
            try pushgate.client.post(
                "/pnm2/multisend", contentType: "application/json", body: "[null]",
                headers: ["Authorization": "Bearer \(key)"]
            ).status, 502)

        // The events happened, as the access log tells them without the query.
        let access = pushgate.nginxAccessLog
        XCTAssertTrue(access.contains("\"GET /token/ HTTP/1.1\" 429 "), access)
        XCTAssertTrue(access.contains("\"POST /token/ HTTP/1.1\" 413 "), access)
        XCTAssertTrue(access.contains("\"GET /token/ HTTP/1.1\" 502 "), access)

        let logs = ["nginx error": pushgate.nginxErrorLog, "nginx access": access, "serve": pushgate.serveLog]
        let secrets = [
            Self.selector, "4F3A9B0C1D2E3F405162738495A6B7C8", Self.fcmToken, "APA91bHsecretFloodToken",
            Self.base64Token,
            encodedToken, "ZXQtYXBucy10b2tlbi1mb3ItdGhl", Self.password, Self.clientID, key, Self.wrongKey,
        ]
        for (name, log) in logs {
            for secret in secrets {
                XCTAssertFalse(log.contains(secret), "the \(name) log carries \(secret):\n\(log)")
            }
        }
    }
}
