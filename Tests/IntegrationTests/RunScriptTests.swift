import PushCore
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
            body: "selector=AB12000000000000:0700&token_msgs=oaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaE%3D&appid_msgs=com.example.app")
        XCTAssertEqual(report.status, 200, report.text)
        // Over 128 KiB, nginx buffers the body in a file under its prefix before passing it
        // on: pushgate's own answer (the reporter's 413 in its words, not nginx's 500) shows it
        // got through.
        let large = try run.client.post(
            "/token/", contentType: "application/x-www-form-urlencoded",
            body: "selector=AB12000000000000:0701&filler=" + String(repeating: "x", count: 200_000))
        XCTAssertEqual(large.status, 413, large.text)
        XCTAssertTrue(large.text.hasPrefix("body is larger than 16384 bytes"), large.text)
        XCTAssertEqual(try run.devices().count, 1)

        XCTAssertEqual(try run.stop(), 0, run.log)
    }

    /// Several serve processes on one SQLite file would take back each other's outbox claims.
    func testSeveralRespondersAreRefusedOnSQLite() throws {
        let state = try RunScript.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let run = try RunScript(state: state, environment: ["PUSHGATE_RESPONDERS": "2"])
        defer { run.stopIfRunning() }
        XCTAssertNotEqual(try run.waitForExit(seconds: 120), 0, run.log)
        XCTAssertTrue(run.log.contains("PUSHGATE_RESPONDERS=2 needs PUSHGATE_DATABASE_URL"), run.log)
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.socket), run.log)
    }

    func testATakenPortMakesItExitNonZeroWithNginxsReason() throws {
        let taken = try LoopbackListener()
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
        // Thousands of new accounts from one address: no quota of new devices for this load.
        let run = try RunScript(state: state, environment: ["PUSHGATE_NEW_DEVICES_PER_HOUR": "0"])
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

/// `scripts/run` with several responders, which needs PostgreSQL: run in scripts/test's
/// PostgreSQL pass.
final class SeveralRespondersRunScriptTests: XCTestCase, RunsOnPostgreSQL {
    /// `PUSHGATE_RESPONDERS=2` on PostgreSQL: two serve processes, each on its own socket, both
    /// in nginx's upstream; every report through nginx is stored, and Ctrl-C stops them all.
    func testTwoRespondersBehindOneNginxOnPostgreSQL() throws {
        let base = ProcessInfo.processInfo.environment["PUSHGATE_TEST_DATABASE_URL"] ?? ""
        try XCTSkipIf(base.isEmpty, "needs PUSHGATE_TEST_DATABASE_URL (scripts/test's PostgreSQL pass)")
        let schema = "run_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let psql = { (command: String) throws -> Void in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            process.arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", base, "-c", command]
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, command)
        }
        try psql("CREATE SCHEMA \(schema)")
        defer { try? psql("DROP SCHEMA IF EXISTS \(schema) CASCADE") }
        let url = base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema

        let state = try RunScript.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: state) }
        let run = try RunScript(state: state, environment: ["PUSHGATE_RESPONDERS": "2", "PUSHGATE_DATABASE_URL": url])
        defer { run.stopIfRunning() }
        try run.waitUntilServing()
        XCTAssertTrue(run.log.contains("with 2 responder(s)"), run.log)

        let second = state.appendingPathComponent("run/pushgate-2.sock").path
        XCTAssertTrue(FileManager.default.fileExists(atPath: run.socket), run.log)
        XCTAssertTrue(FileManager.default.fileExists(atPath: second), run.log)
        let conf = try String(contentsOf: state.appendingPathComponent("run/nginx/pushgate.conf"), encoding: .utf8)
        XCTAssertTrue(conf.contains("server unix:\(run.socket);"), conf)
        XCTAssertTrue(conf.contains("server unix:\(second);"), conf)
        let pids = try String(contentsOfFile: run.servePidFile, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(pids.count, 2)

        for n in 0..<20 {
            let report = try run.client.post(
                "/token/", contentType: "application/x-www-form-urlencoded",
                body: "selector=AB12000000000000:\(1000 + n)&token_msgs=oaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaGhoaE%3D&appid_msgs=com.example.app")
            XCTAssertEqual(report.status, 200, report.text)
        }
        // Each node is scraped on its own path, and says which node it is.
        var nodes: Set<String> = []
        for number in 1...2 {
            let page = try run.client.get("/metrics/node/\(number)")
            XCTAssertEqual(page.status, 200, page.text)
            let line = try XCTUnwrap(page.text.split(separator: "\n").first { $0.hasPrefix("pushgate_node_info{") }, page.text)
            nodes.insert(String(line))
            // The same node every time: nginx sends the path to that node alone.
            for _ in 0..<3 {
                XCTAssertTrue(try run.client.get("/metrics/node/\(number)").text.contains(line))
            }
        }
        XCTAssertEqual(nodes.count, 2, "\(nodes)")
        XCTAssertEqual(try run.client.get("/metrics/node/3").status, 404)
        // doctor, run in the checkout while scripts/run serves, checks scripts/run's nginx and
        // finds nothing wrong with it.
        let doctor = try run.cli(["doctor"])
        XCTAssertTrue(doctor.stdout.contains("ok   nginx: checking \(state.path)/run/nginx/pushgate.conf (scripts/run's, beside the socket)"), doctor.stdout)
        XCTAssertFalse(doctor.stdout.contains("FAIL nginx") || doctor.stdout.contains("FAIL socket"), doctor.stdout)

        XCTAssertEqual(try run.stop(), 0, run.log)
        XCTAssertFalse(FileManager.default.fileExists(atPath: run.socket), "each serve removed its socket")
        XCTAssertFalse(FileManager.default.fileExists(atPath: second), "each serve removed its socket")
    }
}
