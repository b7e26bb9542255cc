import Foundation
import MockUpstream
import PushTesting
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL server that stops and starts again under a running pushgate (nginx and
/// `serve`): every dialect answers 503 with `Retry-After` in its own error shape meanwhile,
/// promptly rather than at nginx's time-out, and works again once the server is back, without
/// a restart of pushgate; under a steady stream of requests nothing answered with success is
/// lost. On a cluster of the test's own (never the shared server of `scripts/test`), in the
/// PostgreSQL pass.
final class DatabaseOutageIntegrationTests: MockUpstreamsTestCase, RunsOnPostgreSQL {
    var database: ThrowawayPostgreSQL!
    static let beamsKey = "outage-key"
    static let device = String(repeating: "ab", count: 32)

    override func setUpWithError() throws {
        try super.setUpWithError()
        try XCTSkipIf(
            (ProcessInfo.processInfo.environment["PUSHGATE_TEST_DATABASE_URL"] ?? "").isEmpty,
            "runs in the PostgreSQL pass (PUSHGATE_TEST_DATABASE_URL)")
        try XCTSkipUnless(ThrowawayPostgreSQL.isAvailable, "needs PostgreSQL's server binaries")
        database = try ThrowawayPostgreSQL()
        try startPushgate(environment: [
            "PUSHGATE_DATABASE_URL": database.url, "PUSHGATE_BRIDGE_FCM_APP": "com.example.android",
        ])
        try pushgate.addMockAPNsApp(id: "com.example.ios", ["--topic", "com.example.ios", "--app-key", Self.beamsKey])
        try pushgate.addMockFCMApp(id: "com.example.android", fcm: fcm)
        let user = try pushgate.run(
            PushgateInstance.executable.path, ["users", "add", "alice", "--password-stdin"], stdin: "alice-secret\n")
        XCTAssertEqual(user.status, 0, user.stderr)
    }

    override func tearDown() {
        super.tearDown()
        database = nil
    }

    private func json(_ method: String, _ path: String, _ body: String, headers: [String: String] = [:]) throws
        -> HTTPClient.Response
    {
        try pushgate.client.request(
            method, path, headers: headers.merging(["Content-Type": "application/json"]) { mine, _ in mine },
            body: Array(body.utf8))
    }

    private func object(_ response: HTTPClient.Response) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }

    private func report(_ selector: String, token: Int) throws -> HTTPClient.Response {
        try Self.report(selector, token: token, client: pushgate.client)
    }

    /// A Token Reporter GET with a token of its own for an app not registered (any bytes do).
    private static func report(_ selector: String, token: Int, client: HTTPClient) throws -> HTTPClient.Response {
        let bytes = (0..<32).map { UInt8(truncatingIfNeeded: token >> (($0 % 4) * 8)) }
        let encoded = Data(bytes).base64EncodedString()
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return try client.get("/token/?selector=\(selector)&token_msgs=\(encoded)&appid_msgs=com.example.phone")
    }

    private var alice: [String: String] {
        ["Authorization": "Basic " + Data("alice:alice-secret".utf8).base64EncodedString()]
    }

    /// Asserts a 503 with `Retry-After`.
    private func assertUnavailable(
        _ response: HTTPClient.Response, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(response.status, 503, "\(what): \(response.text)", file: file, line: line)
        XCTAssertEqual(response.header("Retry-After"), "5", what, file: file, line: line)
    }

    func testEveryDialectAnswers503InItsShapeWhileTheDatabaseIsAwayAndWorksWhenItIsBack() throws {
        XCTAssertEqual(try report("ABC0000000000000:1", token: 1).status, 200)
        try database.stop()

        let reporter = try report("ABC0000000000000:2", token: 2)
        assertUnavailable(reporter, "Token Reporter")
        XCTAssertEqual(reporter.header("Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(reporter.text, "the database is unavailable, try again later\n")

        let removal = try pushgate.client.get("/removeAccount/?selector=ABC0000000000000:1")
        assertUnavailable(removal, "Account Removal Reporter")

        let pnm2 = try json(
            "POST", "/pnm2/send", #"{"verb": "NotifyGenericTextMessage", "AppId": "com.example.ios", "DeviceToken": "\#(Self.device)", "Message": "hi"}"#)
        assertUnavailable(pnm2, "pnm2")
        XCTAssertEqual(object(pnm2)["code"] as? Int, 503, pnm2.text)
        XCTAssertEqual(object(pnm2)["status"] as? Int, 503, pnm2.text)
        XCTAssertEqual(object(pnm2)["response"] as? String, "the database is unavailable, try again later")

        let cospace = try pushgate.client.get("/api/push", headers: alice)
        assertUnavailable(cospace, "cospace")
        XCTAssertEqual(object(cospace) as? [String: String], ["status": "service-unavailable"], cospace.text)
        let event = try json(
            "POST", "/api/push/events",
            #"{"owner": "9aed5e94-3803-11e3-8475-0024e8f90cc0", "message": "recording_new", "recording": "r", "phone": "p"}"#)
        assertUnavailable(event, "cospace event")
        XCTAssertEqual(object(event) as? [String: String], ["status": "service-unavailable"], event.text)

        let client = try json(
            "POST", "/client_api/v1/clients", #"{"app_key": "\#(Self.beamsKey)", "platform_type": "apns", "token": "\#(Self.device)"}"#)
        assertUnavailable(client, "Beams client API")
        XCTAssertEqual(object(client)["error"] as? String, "Service Unavailable", client.text)
        let publish = try json(
            "POST", "/publish_api/v1/instances/\(Self.beamsKey)/publishes",
            #"{"interests": ["calls"], "apns": {"aps": {"alert": "hi"}}}"#)
        assertUnavailable(publish, "Beams publish API")
        XCTAssertEqual(object(publish)["error"] as? String, "Service Unavailable", publish.text)

        let subscribe = try json(
            "POST", "/push/notifications",
            #"{"request": {"correlation": "c-1", "content": {"pnsub": {"destination": "gcm://fcm-token-0123456789", "topic": "a"}}}}"#)
        assertUnavailable(subscribe, "bridge pnsub")
        let envelope = object(subscribe)["response"] as? [String: Any]
        XCTAssertEqual(envelope?["error"] as? String, "the database is unavailable, try again later", subscribe.text)
        XCTAssertEqual(envelope?["correlation"] as? String, "c-1", subscribe.text)
        let topic = try json("POST", "/push/topics/a", #"{"apns": {"aps": {"alert": "hi"}}}"#)
        assertUnavailable(topic, "bridge topic publish")
        XCTAssertEqual(
            (object(topic)["response"] as? [String: Any])?["error"] as? String,
            "the database is unavailable, try again later", topic.text)

        let ready = try pushgate.client.get("/readyz")
        XCTAssertEqual(ready.status, 503, ready.text)
        XCTAssertEqual(try pushgate.client.get("/healthz").status, 200)
        // One warning for the whole outage, not one per request.
        // (/readyz's request line quotes the reason too: count the warning itself.)
        let warning = "the database does not answer, requests get 503"
        try pushgate.waitForServeLog(containing: warning)
        XCTAssertEqual(pushgate.serveLog.components(separatedBy: warning).count - 1, 1, pushgate.serveLog)

        // Back: the first requests already work, on the same pushgate.
        try database.start()
        XCTAssertEqual(try report("ABC0000000000000:2", token: 2).status, 200)
        XCTAssertEqual(try pushgate.client.get("/readyz").status, 200)
        XCTAssertEqual(try pushgate.client.get("/api/push", headers: alice).status, 200)
        let registered = try json(
            "POST", "/client_api/v1/clients", #"{"app_key": "\#(Self.beamsKey)", "platform_type": "apns", "token": "\#(Self.device)"}"#)
        XCTAssertEqual(registered.status, 201, registered.text)
        try pushgate.waitForServeLog(containing: "the database answers again")
        XCTAssertEqual(try storedSelectors(), ["ABC0000000000000:1", "ABC0000000000000:2"])
    }

    /// Requests in a steady stream across a restart of the database: each answered with
    /// success or 503 (never nginx's 502/504, never left hanging), every report answered 200
    /// is stored afterwards, and a Beams publish acknowledged before the outage is delivered
    /// after it.
    func testTheDatabaseRestartedUnderLoad() throws {
        // A device for the publish, whose first deliveries APNs refuses until the database has
        // gone: the push is still queued in the outbox when the server stops.
        let created = try json(
            "POST", "/client_api/v1/clients", #"{"app_key": "\#(Self.beamsKey)", "platform_type": "apns", "token": "\#(Self.device)"}"#)
        XCTAssertEqual(created.status, 201, created.text)
        let clientID = try XCTUnwrap(object(created)["id"] as? String)
        let subscribed = try json(
            "POST", "/client_api/v1/clients/\(clientID)/interests/calls", #"{"app_key": "\#(Self.beamsKey)"}"#)
        XCTAssertEqual(subscribed.status, 200, subscribed.text)
        apns.inject(.status(503, reason: "ServiceUnavailable"), forToken: Self.device)
        let publish = try json(
            "POST", "/publish_api/v1/instances/\(Self.beamsKey)/publishes",
            #"{"interests": ["calls"], "apns": {"aps": {"alert": "before the outage"}}}"#)
        XCTAssertEqual(publish.status, 200, publish.text)
        XCTAssertTrue(apns.waitForRequests(count: 1, timeout: .seconds(60)), pushgate.serveLog)

        let client = pushgate.client
        let stream = RequestStream(threads: 3) { selector, number in
            try Self.report(selector, token: number, client: client).status
        }
        stream.start()
        defer { stream.stop() }
        XCTAssertTrue(stream.waitFor(successes: 20), "no successes before the outage\n\(pushgate.serveLog)")
        try database.stop()
        // From here on APNs accepts: a request the mock records after this one is a delivery.
        apns.clearFaults()
        let refused = apns.requests.count
        XCTAssertTrue(stream.waitFor(unavailable: 5), "no 503 during the outage: \(stream.statuses)\n\(pushgate.serveLog)")
        try database.start()
        let afterRestart = stream.successes + 20
        XCTAssertTrue(stream.waitFor(successes: afterRestart), "no successes after the restart\n\(pushgate.serveLog)")
        stream.stop()

        let answers = stream.answers
        let unexpected = answers.filter { $0.status != 200 && $0.status != 503 }
        XCTAssertEqual(unexpected.map(\.status), [], "every request got success or 503")
        let acknowledged = Set(answers.filter { $0.status == 200 }.map(\.selector))
        let stored = Set(try storedSelectors())
        XCTAssertEqual(acknowledged.subtracting(stored), [], "reports answered 200 but not stored")

        // The publish acknowledged before the outage reaches its device after it.
        let delivered = apns.waitForRequests(count: refused + 1, timeout: .seconds(120))
        XCTAssertTrue(delivered, "\(apns.requests.count) APNs requests\n\(pushgate.serveLog)")
        XCTAssertEqual(apns.requests.last?.path, "/3/device/\(Self.device)")
    }

    /// The selectors of the Token Reporter accounts stored, straight from the database.
    private func storedSelectors() throws -> [String] {
        let output = try pushgate.run(
            "/usr/bin/psql", ["-X", "-q", "-A", "-t", database.url, "-c", "SELECT DISTINCT selector FROM acrobits_accounts ORDER BY 1"])
        XCTAssertEqual(output.status, 0, output.stderr)
        return output.stdout.split(separator: "\n").map(String.init)
    }
}

/// Requests sent one after another on each of a few threads, each with a selector of its own,
/// and the status each got, until stopped.
final class RequestStream: @unchecked Sendable {
    struct Answer {
        let selector: String
        let status: Int
    }

    // @unchecked: `recorded` and `running` are only touched under `condition`.
    private let condition = NSCondition()
    private var recorded: [Answer] = []
    private var running = false
    private var finished = 0
    private let threads: Int
    private let send: @Sendable (String, Int) throws -> Int

    init(threads: Int, send: @escaping @Sendable (_ selector: String, _ number: Int) throws -> Int) {
        self.threads = threads
        self.send = send
    }

    func start() {
        condition.withLock { running = true }
        for thread in 0..<threads {
            Thread.detachNewThread { [self] in
                var number = thread * 1_000_000
                while condition.withLock({ running }) {
                    number += 1
                    let selector = "LOAD000000000000\(number):\(thread)"
                    // A transport failure (the request hung up without an answer) counts as 0.
                    let status = (try? send(selector, number)) ?? 0
                    condition.withLock {
                        recorded.append(Answer(selector: selector, status: status))
                        condition.broadcast()
                    }
                }
                condition.withLock {
                    finished += 1
                    condition.broadcast()
                }
            }
        }
    }

    /// Stops the threads and waits for their last requests.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        guard running else { return }
        running = false
        while finished < threads { condition.wait() }
    }

    var answers: [Answer] { condition.withLock { recorded } }
    var successes: Int { condition.withLock { recorded.filter { $0.status == 200 }.count } }
    var statuses: [Int: Int] {
        condition.withLock { Dictionary(recorded.map { ($0.status, 1) }, uniquingKeysWith: +) }
    }

    func waitFor(successes count: Int, timeout: TimeInterval = 120) -> Bool {
        waitUntil(timeout) { $0.filter { $0.status == 200 }.count >= count }
    }

    func waitFor(unavailable count: Int, timeout: TimeInterval = 120) -> Bool {
        waitUntil(timeout) { $0.filter { $0.status == 503 }.count >= count }
    }

    private func waitUntil(_ timeout: TimeInterval, _ done: ([Answer]) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !done(recorded) {
            if !condition.wait(until: deadline) { return done(recorded) }
        }
        return true
    }
}
