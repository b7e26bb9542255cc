import Foundation
import MockUpstream
import PushCore
import PushTesting
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// pnm2's sends in the upstream lane, through the real nginx and `pushgate serve`, with the mock
/// FCM answering slowly: sends waiting on the upstream are parked, so one lane thread carries
/// many; the responder threads stay free for /healthz and token reports while more sends than
/// there are responder threads wait on the upstream; at the parked bound new sends wait in the
/// queue; a full lane answers pnm2's own busy error, not nginx's 504; SIGTERM lets the sends in
/// the lane finish and answer.
///
/// No assertion measures a duration: "answered while the sends are in flight" is checked as
/// "answered before any send has returned", which a stalled responder cannot fake.
final class UpstreamLaneIntegrationTests: XCTestCase {
    static let app = "valid.appid"
    /// How long the mock FCM holds each slow send: long against a /healthz on a loaded machine.
    static let slowSeconds = 6

    var fcm: MockFCM!
    var pushgate: PushgateInstance!

    override func tearDown() {
        pushgate?.stop()
        pushgate = nil
        fcm?.shutdown()
        fcm = nil
        super.tearDown()
    }

    /// pushgate with 4 responder threads and the given lane settings, and an FCM app.
    private func start(laneThreads: Int, queue: Int, waitMilliseconds: Int, parked: Int? = nil) throws {
        fcm = try MockFCM(configuration: MockFCMConfiguration(serviceAccounts: [try .fixture]))
        var environment = PushgateInstance.upstreams(apns: nil, fcm: fcm)
        environment["PUSHGATE_THREADS"] = "4"
        environment["PUSHGATE_UPSTREAM_LANE_THREADS"] = String(laneThreads)
        environment["PUSHGATE_UPSTREAM_LANE_QUEUE"] = String(queue)
        environment["PUSHGATE_UPSTREAM_LANE_WAIT_MS"] = String(waitMilliseconds)
        if let parked { environment["PUSHGATE_UPSTREAM_LANE_PARKED"] = String(parked) }
        environment["PUSHGATE_LOG_LEVEL"] = "debug"
        pushgate = try PushgateInstance(environment: environment)
        try pushgate.start()
        try pushgate.addMockFCMApp(id: Self.app, fcm: fcm)
    }

    private static func send(token: String) -> String {
        #"{"DeviceToken": "\#(token)", "AppId": "\#(app)", "verb": "NotifyGenericTextMessage", "Message": "hello"}"#
    }

    private func slowTokens(_ count: Int, _ prefix: String = "SlowToken") -> [String] {
        let tokens = (1...count).map { "\(prefix)\($0)" }
        for token in tokens { fcm.inject(.delay(.seconds(Self.slowSeconds)), forToken: token) }
        return tokens
    }

    private func assertSent(
        _ result: Result<HTTPClient.Response, any Error>?, _ token: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        guard case .success(let response)? = result else {
            XCTFail("send to \(token) got no answer: \(String(describing: result))", file: file, line: line)
            return
        }
        XCTAssertEqual(response.status, 200, response.text, file: file, line: line)
        XCTAssertEqual(
            response.text, #"{"code": 200, "response": "Your message was sent.", "status": 200}"#, file: file,
            line: line)
    }

    func testOneLaneThreadCarriesEverySendWaitingOnTheUpstream() throws {
        try start(laneThreads: 1, queue: 16, waitMilliseconds: 50_000)
        let tokens = slowTokens(8)
        let sends = BackgroundSends()
        let client = HTTPClient(port: pushgate.port, timeoutSeconds: 120)
        for token in tokens { sends.post(client, "/pnm2/send", token: token, body: Self.send(token: token)) }
        // A lane thread that waited with its send would let one at a time reach the mock.
        try pushgate.waitUntil("all eight sends reached the mock at once") { fcm.sendRequests.count == 8 }
        XCTAssertEqual(sends.returned, 0, "every send is still waiting on the mock")
        let health = try pushgate.client.get("/healthz")
        XCTAssertEqual(health.status, 200)
        let metrics = try PrometheusText(try pushgate.client.get("/metrics").text)
        XCTAssertEqual(metrics.value("pushgate_parked_requests", ["lane": "upstream"]), 8)
        XCTAssertEqual(metrics.value("pushgate_busy_threads", ["lane": "upstream"]), 0)

        let answers = sends.all()
        for token in tokens { assertSent(answers[token], token) }
        XCTAssertFalse(pushgate.serveLog.contains("lane is full"), pushgate.serveLog)
        let after = try PrometheusText(try pushgate.client.get("/metrics").text)
        XCTAssertEqual(after.value("pushgate_parked_requests", ["lane": "upstream"]), 0)
        XCTAssertEqual(after.value("pushgate_requests_total", ["endpoint": "/pnm2", "status": "200"]), 8)
        // Each parked send still has its request line, written after its answer.
        try pushgate.waitUntil("the eight sends' lines are in serve's log") {
            pushgate.serveLog.components(separatedBy: "POST /pnm2/send 200").count - 1 >= 8
        }
    }

    func testHealthAndTokenReportsAreAnsweredWhileMoreSendsThanRespondersWaitOnTheUpstream() throws {
        try start(laneThreads: 2, queue: 16, waitMilliseconds: 50_000, parked: 2)
        let tokens = slowTokens(6)
        let sends = BackgroundSends()
        let client = HTTPClient(port: pushgate.port, timeoutSeconds: 120)
        for token in tokens { sends.post(client, "/pnm2/send", token: token, body: Self.send(token: token)) }
        // Two sends are parked at the mock, the bound; the other four wait in the lane's queue.
        try pushgate.waitUntil("both parked sends reached the mock") { fcm.sendRequests.count >= 2 }
        try pushgate.waitForServeLog(containing: "behind 3 others")

        // Six sends outnumber the four responder threads: before the lane, these waited for a send.
        let health = try pushgate.client.get("/healthz")
        XCTAssertEqual(health.status, 200)
        let reported = try pushgate.client.get(
            "/token/?selector=LaneSelector-0000&token_msgs=\(Base64.encode(Array("ReportedToken".utf8)))&appid_msgs=\(Self.app)"
        )
        XCTAssertEqual(reported.status, 200, reported.text)
        // pnm2 answers what never reaches the upstream where it was read: a wrong method.
        let options = try pushgate.client.request("OPTIONS", "/pnm2/send")
        XCTAssertEqual(options.status, 400, options.text)
        XCTAssertEqual(options.header("Allow"), "POST")
        XCTAssertEqual(sends.returned, 0, "all of this was answered while every send was still waiting on the upstream")
        XCTAssertEqual(fcm.sendRequests.count, 2, "no more sends reach the upstream at once than the lane parks")
        XCTAssertEqual(try pushgate.storedDevices().count, 1)

        let answers = sends.all()
        for token in tokens { assertSent(answers[token], token) }
        XCTAssertEqual(Set(fcm.sendRequests.compactMap { $0.deviceToken }), Set(tokens))
    }

    func testAFullLaneAnswersPnm2sBusyErrorLoggedOncePerEpisode() throws {
        try start(laneThreads: 1, queue: 1, waitMilliseconds: 300, parked: 1)
        let slow = slowTokens(1)[0]
        let sends = BackgroundSends()
        sends.post(
            HTTPClient(port: pushgate.port, timeoutSeconds: 120), "/pnm2/send", token: slow,
            body: Self.send(token: slow))
        try pushgate.waitUntil("the slow send reached the mock") { fcm.sendRequests.count == 1 }

        // The lane's one parked send is its bound: each of these waits its 300 ms in the queue
        // (or finds the queue full) and gets pnm2's busy answer, in each address's own shape.
        let busy = #"{"code": 500, "response": "Push service busy", "status": 500}"#
        let single = try pushgate.client.post(
            "/pnm2/send", contentType: "application/json", body: Self.send(token: "Other1"))
        let multi = try pushgate.client.post(
            "/pnm2/multisend", contentType: "application/json", body: "[" + Self.send(token: "Other2") + "]")
        let form = try pushgate.client.post(
            "/pnm2", contentType: "application/x-www-form-urlencoded",
            body: "DeviceToken=Other3&AppId=\(Self.app)&verb=NotifyGenericTextMessage&Message=hi")
        for response in [single, multi, form] {
            XCTAssertEqual(response.status, 500, response.text)
            XCTAssertEqual(response.header("Content-Type"), "application/json")
            XCTAssertEqual(response.header("Retry-After"), "1")
            XCTAssertEqual(response.text, busy)
        }
        XCTAssertEqual(sends.returned, 0, "refused while the parked send still waited")
        XCTAssertEqual(fcm.sendRequests.count, 1, "the refused sends never reached the upstream")

        // Each request's line is written just after its answer is sent.
        try pushgate.waitUntil("the three refusals' lines are in serve's log") {
            pushgate.serveLog.components(separatedBy: "the upstream lane had no room").count - 1 >= 3
        }
        let log = pushgate.serveLog
        XCTAssertEqual(log.components(separatedBy: "the upstream lane is full").count - 1, 1, log)
        XCTAssertEqual(log.components(separatedBy: "the upstream lane had no room").count - 1, 3, log)

        assertSent(sends.all()[slow], slow)
        // The lane keeps up again: a send goes through, and the episode's end is logged.
        let after = try pushgate.client.post(
            "/pnm2/send", contentType: "application/json", body: Self.send(token: "FastToken1"))
        assertSent(.success(after), "FastToken1")
        try pushgate.waitForServeLog(containing: "the upstream lane has room again: 3 requests were answered busy")
    }

    func testSigtermLetsTheSendsParkedAndWaitingInTheLaneFinishAndAnswer() throws {
        try start(laneThreads: 1, queue: 4, waitMilliseconds: 50_000, parked: 1)
        let tokens = slowTokens(2)
        let sends = BackgroundSends()
        let client = HTTPClient(port: pushgate.port, timeoutSeconds: 120)
        sends.post(client, "/pnm2/send", token: tokens[0], body: Self.send(token: tokens[0]))
        try pushgate.waitUntil("the first send reached the mock") { fcm.sendRequests.count == 1 }
        sends.post(client, "/pnm2/send", token: tokens[1], body: Self.send(token: tokens[1]))
        try pushgate.waitForServeLog(containing: "waits for a thread of the upstream lane behind 0 others")

        let serve = try XCTUnwrap(pushgate.serve)
        kill(serve.processIdentifier, SIGTERM)
        // Sent while the first send was still held by the mock and the second waited behind it.
        XCTAssertEqual(sends.returned, 0)
        let answers = sends.all()
        for token in tokens { assertSent(answers[token], token) }
        serve.waitUntilExit()
        XCTAssertEqual(serve.terminationStatus, 0, pushgate.serveLog)
        XCTAssertEqual(Set(fcm.sendRequests.compactMap { $0.deviceToken }), Set(tokens))
        let log = pushgate.serveLog
        XCTAssertTrue(log.contains("received SIGTERM"), log)
        XCTAssertFalse(log.contains("still busy"), log)
    }
}
