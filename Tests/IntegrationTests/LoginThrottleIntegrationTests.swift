import FastCGI
import Foundation
import PushCore
import PushTesting
import XCTest

/// An attacker guessing cospace passwords through the real nginx and `pushgate serve`: past
/// the limit the answer is 429 with `Retry-After` in cospace's shape and the password hash is
/// not run (`pushgate_password_checks_total` stands still); 200 wrong logins at once take
/// only the password lane's thread, so `/healthz` and token reports keep answering.
///
/// No assertion measures a duration: "answered while the logins are in flight" is checked as
/// "answered before every login has returned", which a starved responder cannot fake.
final class LoginThrottleIntegrationTests: XCTestCase, RunsOnPostgreSQL {
    var pushgate: PushgateInstance!

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
    }

    private func start(_ environment: [String: String]) throws {
        pushgate = try PushgateInstance(environment: environment)
        let added = try pushgate.run(
            PushgateInstance.executable.path, ["users", "add", "alice", "--password-stdin"], stdin: "alice-secret\n")
        XCTAssertEqual(added.status, 0, added.stderr)
        try pushgate.start()
    }

    private func basic(_ user: String, _ password: String) -> [String: String] {
        ["Authorization": "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()]
    }

    private func passwordChecks() throws -> Double {
        let metrics = try PrometheusText(try pushgate.client.get("/metrics").text)
        return metrics.value("pushgate_password_checks_total") ?? 0
    }

    private func assertCospace(
        _ response: HTTPClient.Response, _ status: Int, _ code: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertEqual(response.status, status, response.text, file: file, line: line)
        XCTAssertEqual(response.header("Content-Type"), "application/json", file: file, line: line)
        XCTAssertEqual(try? JSONValue.parse(response.body), .object(["status": .string(code)]), file: file, line: line)
    }

    func testPastTheLimitLoginsAnswer429WithRetryAfterAndRunNoHash() throws {
        try start(["PUSHGATE_LOGIN_FAILURES_PER_MINUTE": "3"])
        XCTAssertEqual(try passwordChecks(), 0)
        for _ in 1...3 {
            assertCospace(try pushgate.client.get("/api/push", headers: basic("alice", "guess")), 401, "unauthorized")
        }
        XCTAssertEqual(try passwordChecks(), 3, "each wrong password ran the hash")

        let refused = try pushgate.client.get("/api/push", headers: basic("alice", "guess"))
        assertCospace(refused, 429, "too-many-requests")
        let retryAfter = try XCTUnwrap(refused.header("Retry-After").flatMap { Int($0) }, "Retry-After in seconds")
        XCTAssertTrue((1...60).contains(retryAfter), "\(retryAfter)")
        // An unknown user and the right password from the same address: refused alike, and
        // a POST before its body is read.
        assertCospace(try pushgate.client.get("/api/push", headers: basic("mallory", "x")), 429, "too-many-requests")
        assertCospace(
            try pushgate.client.post(
                "/api/push", contentType: "application/json", body: #"{"apns": {"add": []}}"#,
                headers: basic("alice", "alice-secret")),
            429, "too-many-requests")
        XCTAssertEqual(try passwordChecks(), 3, "no refused login ran the hash")
        try pushgate.waitForServeLog(containing: "GET /api/push 429")
        XCTAssertTrue(pushgate.serveLog.contains("login throttled"), pushgate.serveLog)
    }

    func testTheRightPasswordResetsTheCount() throws {
        try start(["PUSHGATE_LOGIN_FAILURES_PER_MINUTE": "3"])
        for _ in 1...2 {
            assertCospace(try pushgate.client.get("/api/push", headers: basic("alice", "guess")), 401, "unauthorized")
        }
        XCTAssertEqual(try pushgate.client.get("/api/push", headers: basic("alice", "alice-secret")).status, 200)
        // The address's two failures still count, so one more is allowed and then no more.
        assertCospace(try pushgate.client.get("/api/push", headers: basic("alice", "guess")), 401, "unauthorized")
        assertCospace(try pushgate.client.get("/api/push", headers: basic("alice", "guess")), 429, "too-many-requests")
    }

    /// An attacker guessing alice's password sprays other user names from many addresses,
    /// straight at serve's socket (nginx's rate limit would slow it, not stop it), to fill the
    /// throttle's tables: alice's failures survive, and her next guess through nginx, from an
    /// address with no failures of its own, is still refused without a hash.
    func testASprayOfOtherNamesDoesNotWipeAUsersFailures() throws {
        try start(["PUSHGATE_LOGIN_FAILURES_PER_MINUTE": "3", "PUSHGATE_LOGIN_THROTTLE_CAPACITY": "20"])
        for _ in 1...3 {
            assertCospace(try pushgate.client.get("/api/push", headers: basic("alice", "guess")), 401, "unauthorized")
        }
        let fresh = pushgate.client(from: "127.0.0.5")
        assertCospace(try fresh.get("/api/push", headers: basic("alice", "guess")), 429, "too-many-requests")

        var statuses: [Int: Int] = [:]
        for n in 0..<100 {
            let reply = try FastCGIClientRequest(params: [
                ("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/api/push"),
                ("REMOTE_ADDR", "2001:db8:\(n)::1"),
                ("HTTP_AUTHORIZATION", basic("spray-\(n)", "x")["Authorization"]!),
            ]).send(toSocket: pushgate.socket)
            statuses[reply.status, default: 0] += 1
        }
        XCTAssertEqual(Set(statuses.keys).subtracting([401, 429]), [], "\(statuses)")
        XCTAssertGreaterThan(statuses[429] ?? 0, 0, "the names table filled: \(statuses)")
        let checks = try passwordChecks()

        let again = pushgate.client(from: "127.0.0.6")
        assertCospace(try again.get("/api/push", headers: basic("alice", "guess")), 429, "too-many-requests")
        XCTAssertEqual(try passwordChecks(), checks, "alice's guess ran no hash")
    }

    /// Logins in flight, posted in the background, and their answers as they come.
    private final class Logins: @unchecked Sendable {
        // @unchecked: `answers` is touched under `condition`.
        private let condition = NSCondition()
        private var answers: [Result<HTTPClient.Response, any Error>] = []
        private let group = DispatchGroup()

        func get(_ client: HTTPClient, headers: [String: String]) {
            group.enter()
            Thread.detachNewThread { [self] in
                let result = Result { try client.get("/api/push", headers: headers) }
                condition.lock()
                answers.append(result)
                condition.unlock()
                group.leave()
            }
        }

        var returned: Int {
            condition.lock()
            defer { condition.unlock() }
            return answers.count
        }

        func all() -> [Result<HTTPClient.Response, any Error>] {
            _ = group.wait(timeout: .now() + 180)
            condition.lock()
            defer { condition.unlock() }
            return answers
        }
    }

    func testHealthAndTokenReportsAnswerWhile200WrongLoginsArrive() throws {
        // A limit the attack stays under, so that every login wants the hash: only the lane
        // stands between them and the responder threads.
        try start([
            "PUSHGATE_LOGIN_FAILURES_PER_MINUTE": "100000", "PUSHGATE_PASSWORD_CHECK_THREADS": "1",
            "PUSHGATE_THREADS": "4",
        ])
        let logins = Logins()
        let client = HTTPClient(port: pushgate.port, timeoutSeconds: 180)
        for index in 1...200 { logins.get(client, headers: basic("alice", "guess-\(index)")) }
        let deadline = Date(timeIntervalSinceNow: 60)
        while try passwordChecks() < 1 {
            guard Date() < deadline else {
                throw PushgateInstance.Failure("no login reached the hash:\n\(pushgate.serveLog)")
            }
            usleep(20_000)
        }

        XCTAssertEqual(try pushgate.client.get("/healthz").status, 200)
        let reported = try pushgate.client.get(
            "/token/?selector=LoginFloodSelector&token_msgs=\(Base64.encode(Array("FloodToken".utf8)))&appid_msgs=com.example.app"
        )
        XCTAssertEqual(reported.status, 200, reported.text)
        XCTAssertEqual(try pushgate.client.get("/healthz").status, 200)
        XCTAssertLessThan(
            logins.returned, 200, "all of this was answered while logins were still waiting to be checked")
        XCTAssertEqual(try pushgate.storedDevices().count, 1)

        let answers = logins.all()
        XCTAssertEqual(answers.count, 200)
        var statuses: [Int: Int] = [:]
        for answer in answers {
            guard case .success(let response) = answer else {
                XCTFail("a login got no answer: \(answer)")
                continue
            }
            statuses[response.status, default: 0] += 1
            if response.status == 503 {
                assertCospace(response, 503, "service-busy")
                XCTAssertEqual(response.header("Retry-After"), "1")
            } else {
                assertCospace(response, 401, "unauthorized")
            }
        }
        XCTAssertEqual(Set(statuses.keys).subtracting([401, 503]), [], "\(statuses)")
        // One lane thread and its queue: the rest were told to come back, unhashed.
        let checks = try passwordChecks()
        XCTAssertEqual(checks, Double(statuses[401] ?? 0), "each 401 ran the hash once, each busy answer none")
        XCTAssertLessThanOrEqual(checks, 1 + 64, "no more than the lane's thread and queue")
    }
}
