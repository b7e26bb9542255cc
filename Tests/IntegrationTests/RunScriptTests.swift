import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PushTesting
import XCTest

/// The real `scripts/run`, as an operator starts it: nginx and `pushgate serve` in front of a
/// state directory of the test's, with the debug binary the tests run beside (PUSHGATE_BIN).
final class RunScriptTests: XCTestCase {
    func testFromADirectoryNginxsWorkersCannotPassItServes() throws {
        // A checkout's state under a 0700 directory, as in root's home: nginx's workers would
        // run as nobody, who cannot pass it to reach the socket or the body buffers.
        let home = try RunScript.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        XCTAssertEqual(chmod(home.path, 0o700), 0)
        let run = try RunScript(state: home.appendingPathComponent("pushgate/var"))
        defer { run.stopIfRunning() }
        try run.waitUntilServing()

        XCTAssertEqual(try run.client.get("/healthz").status, 200)
        let report = try run.client.post(
            "/token/", contentType: "application/x-www-form-urlencoded",
            body: "selector=AB12:0700&token_msgs=oaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaE%3D&appid_msgs=com.example.app")
        XCTAssertEqual(report.status, 200, report.text)
        // Over 128 KiB, nginx buffers the body in a file under its prefix before passing it
        // on: pushgate's own answer (a reason, not nginx's 500) shows it got through.
        let large = try run.client.post(
            "/token/", contentType: "application/x-www-form-urlencoded",
            body: "selector=AB12:0701&filler=" + String(repeating: "x", count: 200_000))
        XCTAssertEqual(large.status, 400, large.text)
        XCTAssertTrue(large.text.hasPrefix("filler is longer than 4096 characters"), large.text)
        XCTAssertEqual(try run.devices().count, 1)

        XCTAssertEqual(try run.stop(), 0, run.log)
    }

    func testATakenPortMakesItExitNonZeroWithNginxsReason() throws {
        let taken = try ListeningSocket()
        let state = try RunScript.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let run = try RunScript(state: state, port: taken.port)
        defer { run.stopIfRunning() }

        let status = try run.waitForExit(seconds: 120)
        XCTAssertNotEqual(status, 0, run.log)
        XCTAssertTrue(run.log.contains("Address already in use"), run.log)
        XCTAssertFalse(run.log.contains("pushgate: serving"), run.log)
        // serve was stopped on the way out: it removes its socket.
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.socket), run.log)
    }

    func testKill9OfServeMakesItExitNonZeroAndStopsNginx() throws {
        let state = try RunScript.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let run = try RunScript(state: state)
        defer { run.stopIfRunning() }
        try run.waitUntilServing()

        let pid = try XCTUnwrap(Int32(try String(contentsOfFile: run.servePidFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(kill(pid, SIGKILL), 0)
        let status = try run.waitForExit(seconds: 120)
        XCTAssertNotEqual(status, 0, run.log)
        XCTAssertTrue(run.log.contains("pushgate serve ended on its own"), run.log)
        XCTAssertThrowsError(try HTTPClient(port: run.port, timeoutSeconds: 5).get("/nginx-health"), "nginx was stopped")
    }

    func testKill9OfNginxMakesItExitNonZeroAndStopsServe() throws {
        let state = try RunScript.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let run = try RunScript(state: state)
        defer { run.stopIfRunning() }
        try run.waitUntilServing()

        let pid = try XCTUnwrap(Int32(try String(contentsOfFile: run.nginxPidFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(kill(pid, SIGKILL), 0)
        let status = try run.waitForExit(seconds: 120)
        XCTAssertNotEqual(status, 0, run.log)
        XCTAssertTrue(run.log.contains("nginx ended on its own"), run.log)
        // Its workers, which outlive a killed master, were stopped with it.
        XCTAssertThrowsError(try HTTPClient(port: run.port, timeoutSeconds: 5).get("/nginx-health"), "nginx's workers")
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.socket), "serve was stopped: \(run.log)")
    }

    /// SIGTERM while phones report tokens: nginx stops taking requests first, serve finishes
    /// what nginx passed it, so no request gets a 502 and every report answered 200 is stored.
    func testSIGTERMUnderLoadGivesNo502AndKeepsEveryAcknowledgedReport() throws {
        let state = try RunScript.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let run = try RunScript(state: state)
        defer { run.stopIfRunning() }
        try run.waitUntilServing()

        let acknowledged = Locked<[String]>([])
        let refusedWith = Locked<[Int: Int]>([:])
        let stopping = Locked(false)
        let done = DispatchGroup()
        let client = HTTPClient(port: run.port, timeoutSeconds: 60)
        for thread in 0..<4 {
            done.enter()
            Thread {
                defer { done.leave() }
                var n = 0
                // Until the script has stopped and the port no longer answers.
                while !stopping.withLock({ $0 }) {
                    n += 1
                    let selector = String(format: "%08X%08X:load", thread, n)
                    let body = "selector=\(selector)&token_msgs=oaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaE%3D&appid_msgs=com.example.app"
                    guard let response = try? client.post("/token/", contentType: "application/x-www-form-urlencoded", body: body)
                    else {
                        usleep(1000)  // refused: nginx has closed its port
                        continue
                    }
                    if response.status == 200 {
                        acknowledged.withLock { $0.append(selector) }
                    } else {
                        refusedWith.withLock { $0[response.status, default: 0] += 1 }
                    }
                }
            }.start()
        }
        // Load first, then the stop in the middle of it.
        let deadline = Date().addingTimeInterval(60)
        while acknowledged.withLock({ $0.count }) < 200, Date() < deadline { usleep(10_000) }
        XCTAssertGreaterThan(acknowledged.withLock { $0.count }, 0, "no report went through: \(run.log)")
        run.signal(SIGTERM)
        let status = try run.waitForExit(seconds: 120)
        stopping.withLock { $0 = true }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)

        XCTAssertEqual(status, 0, run.log)
        XCTAssertEqual(refusedWith.withLock { $0 }, [:], "answers other than 200 during the stop")
        let stored = Set(try run.devices().flatMap { device in
            (device["owners"] as? [[String: Any]] ?? []).compactMap { $0["selector"] as? String }
        })
        let missing = Set(acknowledged.withLock { $0 }).subtracting(stored)
        XCTAssertEqual(missing, [], "acknowledged with 200 but not stored")
    }
}

/// One `scripts/run` started by a test, its output in `log`.
final class RunScript {
    let state: URL
    let port: Int
    let socket: String
    let database: String
    private let process = Process()
    private let logURL: URL

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushgate-run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Starts `scripts/run` with its database, socket and nginx prefix under `state`.
    init(state: URL, port: Int? = nil) throws {
        self.state = state
        self.port = try port ?? freeLoopbackPort()
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        socket = state.appendingPathComponent("run/pushgate.sock").path
        database = state.appendingPathComponent("pushgate.sqlite").path
        logURL = state.deletingLastPathComponent().appendingPathComponent("run-\(UUID().uuidString.prefix(8)).log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.executableURL = PushgateInstance.repository.appendingPathComponent("scripts/run")
        process.environment = environment.merging(["PUSHGATE_BIN": PushgateInstance.executable.path]) { _, new in new }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHGATE_") }
        environment["PUSHGATE_DB"] = database
        environment["PUSHGATE_SOCKET"] = socket
        environment["PUSHGATE_HTTP_PORT"] = String(port)
        environment["PUSHGATE_SQL_DIR"] = PushgateInstance.repository.appendingPathComponent("sql").path
        environment["PUSHGATE_THREADS"] = "4"
        return environment
    }

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
    var servePidFile: String { state.appendingPathComponent("run/pushgate.pid").path }
    var nginxPidFile: String { state.appendingPathComponent("run/nginx/nginx.pid").path }
    var client: HTTPClient { HTTPClient(port: port) }

    /// Waits for the script's "serving" line (printed once /healthz answers through nginx).
    func waitUntilServing(seconds: TimeInterval = 120) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if log.contains("pushgate: serving") { return }
            guard process.isRunning else { throw PushgateInstance.Failure("scripts/run exited:\n\(log)") }
            usleep(50_000)
        }
        throw PushgateInstance.Failure("scripts/run did not say it was serving:\n\(log)")
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the script to end and returns its exit status (a signal's number + 128).
    func waitForExit(seconds: TimeInterval) throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        guard !process.isRunning else { throw PushgateInstance.Failure("scripts/run did not end:\n\(log)") }
        return process.terminationReason == .uncaughtSignal ? process.terminationStatus + 128 : process.terminationStatus
    }

    /// SIGTERM, and its exit status.
    func stop() throws -> Int32 {
        signal(SIGTERM)
        return try waitForExit(seconds: 120)
    }

    func stopIfRunning() {
        guard process.isRunning else { return }
        _ = try? stop()
    }

    /// `pushgate tokens list --json` on this run's database.
    func devices() throws -> [[String: Any]] {
        let list = Process()
        list.executableURL = PushgateInstance.executable
        list.arguments = ["tokens", "list", "--json"]
        list.environment = environment
        let out = Pipe()
        list.standardOutput = out
        list.standardError = FileHandle.nullDevice
        try list.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        list.waitUntilExit()
        guard list.terminationStatus == 0 else { throw PushgateInstance.Failure("tokens list failed") }
        return try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
    }
}

/// A loopback port something else already listens on.
final class ListeningSocket {
    let port: Int
    private let fd: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else {
            close(fd)
            throw PushgateInstance.Failure("listen: errno \(errno)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(fd) }
}
