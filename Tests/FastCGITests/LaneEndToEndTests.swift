import Foundation
import Glibc
import Logging
import PushCore
import PushTesting
import XCTest

@testable import FastCGI

/// nginx in front of an in-process FastCGIServer with a lane: requests the handler sends to the
/// lane are handed over whole (connection, params, unread body) and answered on the lane's
/// threads, while the responder threads go on serving; a full lane answers with the handler's
/// busy response; stopping answers what the lane holds. Requests to `/held` wait at a gate the
/// test opens, so nothing here depends on the machine's speed.
final class LaneEndToEndTests: XCTestCase {
    /// Where `/held` requests wait until the test opens it.
    private final class Gate: @unchecked Sendable {
        // @unchecked: the fields are only touched under `condition`.
        private let condition = NSCondition()
        private var open = false
        private var inside = 0

        func pass() {
            condition.lock()
            inside += 1
            condition.broadcast()
            while !open { condition.wait() }
            condition.unlock()
        }

        func openUp() {
            condition.lock()
            open = true
            condition.broadcast()
            condition.unlock()
        }

        /// Waits (up to a minute, which only a hang reaches) until `count` requests wait inside.
        func waitUntilInside(_ count: Int, seconds: Double = 60) -> Bool {
            let deadline = Date(timeIntervalSinceNow: seconds)
            condition.lock()
            defer { condition.unlock() }
            while inside < count { if !condition.wait(until: deadline) { return false } }
            return true
        }
    }

    /// `/held…` goes to the upstream lane and waits at the gate; it answers with its thread and
    /// the body it read. `/parked…` goes there too and is parked: a thread of its own waits at
    /// the gate, then resumes the answer to the lane thread, which names itself in it.
    /// Everything else is answered where it was read.
    private struct GatedHandler: RequestHandler {
        let thread: Int
        let gate: Gate

        func route(_ head: inout Request) -> RequestLane? {
            head.path.hasPrefix("/held") || head.path.hasPrefix("/parked") ? .upstream : nil
        }

        func refuse(_ head: Request, _ refusal: EdgeRefusal) -> Response {
            refusal == .busy ? .text(503, "lane busy") : .text(413, "too large")
        }

        func handle(_ request: Request) -> Response {
            let body = String(decoding: request.body, as: UTF8.self)
            if request.path.hasPrefix("/parked") {
                let gate = gate
                let thread = thread
                let reader = UInt(pthread_self())
                return .parked(
                    ParkedResponse(weight: 1) { home, answer in
                        Thread.detachNewThread {
                            gate.pass()
                            home.resume {
                                let place = UInt(pthread_self()) == reader ? "the thread that read it" : "another thread"
                                answer(.text(200, "thread \(thread) body \(body) resumed on \(place)"))
                            }
                        }
                    })
            }
            if request.path.hasPrefix("/held") { gate.pass() }
            return .text(200, "thread \(thread) body \(body)")
        }
    }

    private var directory: TemporaryDirectory!
    private var server: FastCGIServer!
    private var nginx: NginxProcess!
    private var logs: RecordingLogHandler.Store!
    private let gate = Gate()
    private let responderThreads = 2

    private func start(
        laneThreads: Int, queue: Int, wait: Double = 600, parked: Int = .max, responderBodyLimit: Int = 0
    ) throws {
        directory = try TemporaryDirectory()
        let socketPath = directory.path + "/run/pushgate.sock"
        let (logger, store) = RecordingLogHandler.logger()
        logs = store
        server = FastCGIServer(
            configuration: FastCGIConfiguration(
                socketPath: socketPath, socketGroup: NginxProcess.workerGroupID, threadCount: responderThreads,
                lanes: [
                    LaneConfiguration(
                        lane: .upstream, threadCount: laneThreads, queueLimit: queue, queueWaitSeconds: wait,
                        drainTimeoutSeconds: 60, parkedLimit: parked, responderBodyLimit: responderBodyLimit)
                ]))
        let gate = self.gate
        try server.start(makeHandler: { GatedHandler(thread: $0, gate: gate) }, logger: logger)
        nginx = try NginxProcess(
            prefix: directory.url.appendingPathComponent("nginx"), port: try freeLoopbackPort(),
            socketPath: socketPath, maxBody: "64k", workers: 1)
    }

    override func tearDown() {
        gate.openUp()
        nginx?.stop()
        server?.stop()
        nginx = nil
        server = nil
        directory = nil
    }

    private var client: HTTPClient { HTTPClient(port: nginx.port, timeoutSeconds: 60) }

    /// Posts in the background; the answers are collected by body sent.
    private final class Answers: @unchecked Sendable {
        private let lock = NSLock()
        private var answers: [String: HTTPClient.Response?] = [:]
        private let group = DispatchGroup()

        func post(_ client: HTTPClient, _ path: String, body: String) {
            group.enter()
            Thread.detachNewThread { [self] in
                let response = try? client.request("POST", path, body: Array(body.utf8))
                lock.withLock { answers[body] = .some(response) }
                group.leave()
            }
        }

        var count: Int { lock.withLock { answers.count } }

        func all() -> [String: HTTPClient.Response?] {
            _ = group.wait(timeout: .now() + 60)
            return lock.withLock { answers }
        }
    }

    func testTheRespondersServeWhileMoreLaneRequestsThanRespondersWait() throws {
        try start(laneThreads: 2, queue: 8)
        let answers = Answers()
        let bodies = (1...5).map { "b\($0)" }
        for body in bodies { answers.post(client, "/held", body: body) }
        XCTAssertTrue(gate.waitUntilInside(2), "the lane's two threads took a request each")

        // Five held requests outnumber the two responder threads: these only get answered
        // because none of the held ones keeps a responder thread.
        for index in 0..<4 {
            let response = try client.get("/free/\(index)")
            XCTAssertEqual(response.status, 200)
            XCTAssertTrue(response.text.hasPrefix("thread 0 ") || response.text.hasPrefix("thread 1 "), response.text)
        }
        XCTAssertEqual(answers.count, 0, "answered while every lane request was still held")

        gate.openUp()
        let all = answers.all()
        for body in bodies {
            let response = try XCTUnwrap(all[body] ?? nil, "no answer for \(body)")
            XCTAssertEqual(response.status, 200)
            // Lane threads get the handlers made after the responders' (indexes 2 and 3), and
            // read the body the responder left unread.
            XCTAssertTrue(
                response.text == "thread 2 body \(body)\n" || response.text == "thread 3 body \(body)\n", response.text)
        }
        // The connections the lane answered on were parked for nginx's next requests.
        XCTAssertEqual(try client.get("/after").status, 200)
    }

    func testAFullLaneAnswersTheHandlersBusyResponseAndDrainsTheBody() throws {
        try start(laneThreads: 1, queue: 0)
        let answers = Answers()
        answers.post(client, "/held", body: "first")
        XCTAssertTrue(gate.waitUntilInside(1))

        let refused = try client.request("POST", "/held", body: Array(String(repeating: "x", count: 20_000).utf8))
        XCTAssertEqual(refused.status, 503)
        XCTAssertEqual(refused.text, "lane busy\n")
        XCTAssertEqual(answers.count, 0)
        XCTAssertEqual(logs.all.filter { $0.message.contains("the upstream lane is full") }.count, 1)
        // The request's line is written just after its answer is sent.
        let refusedLine = {
            self.logs.all.contains {
                $0.message.hasPrefix("POST /held 503")
                    && $0.message.contains("the upstream lane had no room: its queue was full")
            }
        }
        for _ in 0..<3000 where !refusedLine() { usleep(10_000) }
        XCTAssertTrue(refusedLine(), "\(logs.all.map(\.message))")

        gate.openUp()
        XCTAssertEqual((answers.all()["first"] ?? nil)?.status, 200)
    }

    func testStoppingAnswersWhatTheLaneHolds() throws {
        try start(laneThreads: 1, queue: 4)
        let answers = Answers()
        answers.post(client, "/held", body: "running")
        XCTAssertTrue(gate.waitUntilInside(1))
        answers.post(client, "/held", body: "queued")
        for _ in 0..<3000 where !logs.all.contains(where: { $0.message.contains("behind 0 others") }) { usleep(10_000) }

        let server = self.server!
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.stop()
            stopped.signal()
        }
        for _ in 0..<3000 where !logs.all.contains(where: { $0.message.contains("finishing 1 running, 0 parked and 1 waiting") })
        {
            usleep(10_000)
        }
        XCTAssertTrue(
            logs.all.contains { $0.message.contains("FastCGI lane upstream: finishing 1 running, 0 parked and 1 waiting") })
        XCTAssertEqual(answers.count, 0)

        gate.openUp()
        XCTAssertEqual(stopped.wait(timeout: .now() + 60), .success)
        let all = answers.all()
        XCTAssertEqual((all["running"] ?? nil)?.text, "thread 2 body running\n")
        XCTAssertEqual((all["queued"] ?? nil)?.text, "thread 2 body queued\n")
        XCTAssertTrue(logs.all.contains { $0.message == "FastCGI server stopped" })
    }

    func testParkedRequestsGiveTheirThreadBackAndAreAnsweredFromIt() throws {
        try start(laneThreads: 1, queue: 8)
        let answers = Answers()
        let bodies = (1...4).map { "p\($0)" }
        for body in bodies { answers.post(client, "/parked", body: body) }
        // One lane thread: four requests are only all inside at once because each one parked
        // gave the thread back.
        XCTAssertTrue(gate.waitUntilInside(4), "every parked request is waiting at once")
        XCTAssertEqual(answers.count, 0)

        gate.openUp()
        let all = answers.all()
        for body in bodies {
            let response = try XCTUnwrap(all[body] ?? nil, "no answer for \(body)")
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.text, "thread 2 body \(body) resumed on the thread that read it\n")
        }
        XCTAssertFalse(logs.all.contains { $0.message.contains("lane is full") })
        // The lines are written after the answers: each parked request has one, with its status.
        for _ in 0..<3000 where logs.all.filter({ $0.message.hasPrefix("POST /parked 200") }).count < 4 { usleep(10_000) }
        XCTAssertEqual(logs.all.filter { $0.message.hasPrefix("POST /parked 200") }.count, 4)
        XCTAssertEqual(try client.get("/after").status, 200)
    }

    func testSmallRequestsAreCheckedOnTheirResponderAndResumedOnTheLane() throws {
        try start(laneThreads: 1, queue: 8, responderBodyLimit: 16)
        let answers = Answers()
        let small = (1...3).map { "small\($0)" }
        let large = "large-" + String(repeating: "x", count: 64)
        for body in small { answers.post(client, "/parked", body: body) }
        // Two responder threads: three requests inside at once because each one parked.
        XCTAssertTrue(gate.waitUntilInside(3), "every small request is parked")
        answers.post(client, "/parked", body: large)
        XCTAssertTrue(gate.waitUntilInside(4), "the large one too")

        gate.openUp()
        let all = answers.all()
        for body in small {
            let response = try XCTUnwrap(all[body] ?? nil, "no answer for \(body)")
            XCTAssertEqual(response.status, 200)
            // Handlers 0 and 1 are the responders'; the answer came from the lane's thread.
            XCTAssertTrue(
                response.text == "thread 0 body \(body) resumed on another thread\n"
                    || response.text == "thread 1 body \(body) resumed on another thread\n", response.text)
        }
        // Over the limit: read and answered on the lane's thread, as before.
        XCTAssertEqual((all[large] ?? nil)?.text, "thread 2 body \(large) resumed on the thread that read it\n")
        for _ in 0..<3000 where logs.all.filter({ $0.message.hasPrefix("POST /parked 200") }).count < 4 { usleep(10_000) }
        XCTAssertEqual(logs.all.filter { $0.message.hasPrefix("POST /parked 200") }.count, 4)
        XCTAssertEqual(try client.get("/after").status, 200)
    }

    func testAtTheParkedBoundNewRequestsWaitInTheQueue() throws {
        try start(laneThreads: 2, queue: 4, parked: 1)
        let answers = Answers()
        answers.post(client, "/parked", body: "first")
        XCTAssertTrue(gate.waitUntilInside(1))
        answers.post(client, "/parked", body: "second")
        for _ in 0..<3000 where !logs.all.contains(where: { $0.message.contains("behind 0 others") }) { usleep(10_000) }
        XCTAssertTrue(logs.all.contains { $0.message.contains("waits for a thread of the upstream lane behind 0 others") })
        // A free thread, but the bound holds the second request in the queue: it never reached the gate.
        XCTAssertFalse(gate.waitUntilInside(2, seconds: 0.5))

        gate.openUp()
        let all = answers.all()
        XCTAssertEqual((all["first"] ?? nil)?.status, 200)
        XCTAssertEqual((all["second"] ?? nil)?.status, 200)
    }

    func testStoppingAnswersParkedRequestsBeforeTheLaneEnds() throws {
        try start(laneThreads: 1, queue: 4)
        let answers = Answers()
        answers.post(client, "/parked", body: "parked")
        XCTAssertTrue(gate.waitUntilInside(1))

        let server = self.server!
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.stop()
            stopped.signal()
        }
        let finishing = "FastCGI lane upstream: finishing 0 running, 1 parked and 0 waiting"
        for _ in 0..<3000 where !logs.all.contains(where: { $0.message.contains(finishing) }) { usleep(10_000) }
        XCTAssertTrue(logs.all.contains { $0.message.contains(finishing) })
        XCTAssertEqual(answers.count, 0)
        XCTAssertEqual(stopped.wait(timeout: .now()), .timedOut, "the lane waits for its parked request")

        gate.openUp()
        XCTAssertEqual(stopped.wait(timeout: .now() + 60), .success)
        XCTAssertEqual((answers.all()["parked"] ?? nil)?.text, "thread 2 body parked resumed on the thread that read it\n")
        XCTAssertTrue(logs.all.contains { $0.message == "FastCGI server stopped" })
    }
}
