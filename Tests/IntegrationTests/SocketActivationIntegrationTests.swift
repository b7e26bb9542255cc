import Foundation
import PushTesting
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `pushgate serve` on the socket systemd passes (pushgate.socket): restarted again and again
/// under a Token Reporter load behind the real nginx, it loses no request, because the socket
/// and its backlog outlive every serve. And without a socket passed to it, serve makes its
/// own as before.
final class SocketActivationIntegrationTests: XCTestCase {
    private static let restarts = 10
    private static let clientThreads = 6
    /// Requests each client thread sends at most; the load also ends when the restarts do.
    private static let requestsPerThread = 20_000
    /// Reports each serve answers before it is stopped.
    private static let reportsPerServe = 200

    /// The tally of the load: what was sent, answered 200, and failed (anything else).
    private final class Tally: @unchecked Sendable {
        // @unchecked: every field is read and written under `lock`.
        private let lock = NSLock()
        private(set) var sent = 0
        private(set) var answered = 0
        private(set) var failures: [String] = []
        private var stopped = false

        func record(_ outcome: Result<Int, Error>) {
            lock.lock()
            defer { lock.unlock() }
            sent += 1
            switch outcome {
            case .success(200): answered += 1
            case .success(let status): failures.append("status \(status)")
            case .failure(let error): failures.append("\(error)")
            }
        }

        var isStopped: Bool {
            lock.lock()
            defer { lock.unlock() }
            return stopped
        }

        func stop() {
            lock.lock()
            stopped = true
            lock.unlock()
        }

        var snapshot: (sent: Int, answered: Int, failures: [String]) {
            lock.lock()
            defer { lock.unlock() }
            return (sent, answered, failures)
        }
    }

    /// A Token Reporter GET from client `thread`, its `number`th: each thread its own selector.
    private static func report(thread: Int, number: Int) -> String {
        let selector =
            String(repeating: "A", count: 32) + String(format: "%08X", thread) + ":"
            + String(format: "%08X", number % 4)
        let token = Data("token-\(thread)-\(number)".utf8).base64EncodedString()
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return "/token/?selector=\(selector)&token_msgs=\(token)&appid_msgs=com.cloudsoftphone.app"
    }

    func testRestartsUnderATokenReporterLoadLoseNoRequest() throws {
        // Each node's answered reports are counted from its log, where a success is at debug.
        let pushgate = try PushgateInstance(environment: ["PUSHGATE_LOG_LEVEL": "debug"])
        let holder = try ServeSocketHolder(path: pushgate.socket, group: NginxProcess.workerGroupID)
        var pids: [pid_t] = []
        var logs: [URL] = []
        func startServe() throws {
            let log = pushgate.directory.appendingPathComponent("serve-\(logs.count).log")
            pids.append(
                try holder.startServe(PushgateInstance.executable.path, environment: pushgate.environment, log: log))
            logs.append(log)
        }
        func log(_ index: Int) -> String { (try? String(contentsOf: logs[index], encoding: .utf8)) ?? "" }
        func reportsAnswered(_ index: Int) -> Int { log(index).components(separatedBy: "GET /token/ 200").count - 1 }
        defer { if let running = pids.last { ServeSocketHolder.stop(running) } }

        try startServe()
        try pushgate.startNginx()
        XCTAssertEqual(try pushgate.client.get(Self.report(thread: 99, number: 0)).status, 200)

        let tally = Tally()
        let client = pushgate.client
        let load = DispatchGroup()
        for thread in 0..<Self.clientThreads {
            DispatchQueue.global().async(group: load) {
                for number in 0..<Self.requestsPerThread where !tally.isStopped {
                    tally.record(Result { try client.get(Self.report(thread: thread, number: number)).status })
                }
            }
        }

        for restart in 1...Self.restarts {
            // Each serve answers some of the load before it is stopped: the restarts happen
            // under load, not between bursts of it.
            try waitUntil("serve #\(restart) answering reports:\n\(log(restart - 1))") {
                reportsAnswered(restart - 1) >= Self.reportsPerServe
            }
            let status = ServeSocketHolder.stop(pids[restart - 1])
            XCTAssertTrue(
                status & 0x7f == 0 && (status >> 8) & 0xff == 0,
                "serve #\(restart) exited with \(status):\n\(log(restart - 1))")
            try startServe()
        }
        try waitUntil("the last serve answering reports") { reportsAnswered(Self.restarts) >= Self.reportsPerServe }
        tally.stop()
        XCTAssertEqual(load.wait(timeout: .now() + 120), .success, "the load did not end")

        let (sent, answered, failures) = tally.snapshot
        print(
            "socket activation: \(sent) requests, \(answered) answered 200, \(failures.count) failed, \(Self.restarts) restarts of serve"
        )
        XCTAssertEqual(failures.count, 0, "failed requests, the first: \(failures.prefix(5))")
        XCTAssertEqual(answered, sent)
        XCTAssertEqual(Set(pids).count, Self.restarts + 1, "every restart started a new serve")
        for index in logs.indices {
            let text = log(index)
            XCTAssertTrue(
                text.contains("passed by systemd, named pushgate.socket"),
                "serve #\(index + 1) made its own socket:\n\(text)")
            XCTAssertTrue(
                text.contains("FastCGI server stopped") || index == Self.restarts,
                "serve #\(index + 1) did not drain:\n\(text)")
        }
        // Nobody removed the socket unit's file: it is still the one the holder bound.
        XCTAssertEqual(try socketOccupantIsLive(pushgate.socket), true)
    }

    func testWithoutASocketPassedServeMakesAndRemovesItsOwn() throws {
        let pushgate = try PushgateInstance()
        try pushgate.start()
        XCTAssertEqual(try pushgate.client.get(Self.report(thread: 1, number: 1)).status, 200)
        pushgate.stop()
        XCTAssertTrue(pushgate.serveLog.contains("FastCGI listening on \(pushgate.socket):"), pushgate.serveLog)
        XCTAssertFalse(pushgate.serveLog.contains("systemd"), pushgate.serveLog)
        XCTAssertFalse(FileManager.default.fileExists(atPath: pushgate.socket), "serve removes the socket it made")
    }

    /// Variables inherited from a parent that systemd activated name that parent's pid: serve
    /// leaves them and whatever its descriptor 3 is alone, and makes its own socket.
    func testListenFDSForAnotherProcessIsIgnored() throws {
        let pushgate = try PushgateInstance(environment: ["LISTEN_FDS": "1", "LISTEN_PID": "1"])
        try pushgate.start()
        XCTAssertEqual(try pushgate.client.get(Self.report(thread: 2, number: 2)).status, 200)
        XCTAssertTrue(pushgate.serveLog.contains("FastCGI listening on \(pushgate.socket):"), pushgate.serveLog)
        XCTAssertFalse(pushgate.serveLog.contains("passed by systemd"), pushgate.serveLog)
    }

    /// LISTEN_FDS for serve that passes two sockets, or a descriptor that is not a listening
    /// socket: serve stops with the reason instead of serving somewhere nginx does not connect.
    func testAPassedDescriptorServeCannotListenOnStopsItWithTheReason() throws {
        let pushgate = try PushgateInstance()
        let cases = [
            (#"export LISTEN_PID=$$ LISTEN_FDS=2; exec "$0" serve"#, "LISTEN_FDS passes 2 descriptors"),
            (#"exec 3</dev/null; export LISTEN_PID=$$ LISTEN_FDS=1; exec "$0" serve"#, "descriptor 3 is not a socket"),
        ]
        for (script, reason) in cases {
            let output = try pushgate.run("/bin/sh", ["-c", script, PushgateInstance.executable.path])
            XCTAssertNotEqual(output.status, 0, script)
            XCTAssertTrue(output.stderr.contains(reason), "\(script): \(output.stderr)")
        }
    }

    private func socketOccupantIsLive(_ path: String) throws -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        } == 0
    }

    /// Waits (up to a minute: a bound, not a measure) for `condition`.
    private func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if condition() { return }
            usleep(20_000)
        }
        throw PushgateInstance.Failure("timed out waiting for \(what)")
    }
}
