import FastCGI
import Foundation
import PushTesting
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `PUSHGATE_LISTEN` as every command reads it: an IPv4 address and a port, or a clear refusal
/// before anything starts.
final class ListenSettingTests: XCTestCase {
    func testAnAddressIsTakenAndAnythingElseRefusedByName() throws {
        let good = try PushgateInstance(environment: ["PUSHGATE_LISTEN": "127.0.0.1:9000"], migrated: false)
        let shown = try good.cli(["config", "get", "PUSHGATE_LISTEN"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertEqual(shown.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "127.0.0.1:9000")

        for value in ["localhost:9000", "10.0.0.5", "10.0.0.5:70000", "[::1]:9000"] {
            let bad = try PushgateInstance(environment: ["PUSHGATE_LISTEN": value], migrated: false)
            let serve = try bad.cli(["serve"])
            XCTAssertEqual(serve.status, 1, "\(value): \(serve.stderr)")
            XCTAssertTrue(serve.stderr.contains("PUSHGATE_LISTEN"), "\(value): \(serve.stderr)")
            XCTAssertTrue(serve.stderr.contains("an IPv4 address and a port"), "\(value): \(serve.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: bad.socket), "nothing was started")
        }
    }

    /// With TCP there is no socket for nginx's user to reach: doctor says where it listens
    /// instead, and warns when that is reachable from the network.
    func testDoctorReportsTheTCPListenerInsteadOfTheSocket() throws {
        let loopback = try PushgateInstance(environment: ["PUSHGATE_LISTEN": "127.0.0.1:9000"])
        let local = try loopback.cli(["doctor", "--nginx-user", "nobody"])
        XCTAssertTrue(local.stdout.contains("FastCGI listens on TCP 127.0.0.1:9000 (PUSHGATE_LISTEN), this host only"), local.stdout)

        let network = try PushgateInstance(environment: ["PUSHGATE_LISTEN": "0.0.0.0:9000"])
        let exposed = try network.cli(["doctor", "--nginx-user", "nobody"])
        let line = exposed.stdout.split(separator: "\n").first { $0.contains("PUSHGATE_LISTEN=0.0.0.0:9000") }
        XCTAssertNotNil(line, exposed.stdout)
        XCTAssertTrue(line?.contains("FAIL") ?? false, exposed.stdout)
        XCTAssertTrue(line?.contains("set PUSHGATE_FASTCGI_CLIENTS") ?? false, exposed.stdout)

        let listed = try PushgateInstance(
            environment: ["PUSHGATE_LISTEN": "0.0.0.0:9000", "PUSHGATE_FASTCGI_CLIENTS": "10.0.0.2, 10.0.1.0/24"])
        let named = try listed.cli(["doctor", "--nginx-user", "nobody"])
        let namedLine = named.stdout.split(separator: "\n").first { $0.contains("FastCGI listens on TCP 0.0.0.0:9000") }
        XCTAssertTrue(namedLine?.contains("ok") ?? false, named.stdout)
        XCTAssertTrue(namedLine?.contains("from 10.0.0.2, 10.0.1.0/24 only") ?? false, named.stdout)

        let anyone = try PushgateInstance(
            environment: ["PUSHGATE_LISTEN": "0.0.0.0:9000", "PUSHGATE_FASTCGI_CLIENTS": "0.0.0.0/0"])
        let open = try anyone.cli(["doctor", "--nginx-user", "nobody"])
        let openLine = open.stdout.split(separator: "\n").first { $0.contains("PUSHGATE_FASTCGI_CLIENTS=0.0.0.0/0") }
        XCTAssertTrue(openLine?.contains("WARN") ?? false, open.stdout)
    }

    /// Beyond loopback, serve does not start without the list of nginx hosts: whoever reached
    /// the port could otherwise set REMOTE_ADDR to 127.0.0.1.
    func testServeRefusesToListenBeyondLoopbackWithoutTheClientList() throws {
        let instance = try PushgateInstance(environment: ["PUSHGATE_LISTEN": "0.0.0.0:\(try freeLoopbackPort())"])
        let serve = try serveUntilItExits(instance)
        XCTAssertEqual(serve.status, 1, serve.log)
        XCTAssertTrue(serve.log.contains("set PUSHGATE_FASTCGI_CLIENTS"), serve.log)
        let bad = try PushgateInstance(
            environment: ["PUSHGATE_LISTEN": "127.0.0.1:9000", "PUSHGATE_FASTCGI_CLIENTS": "nginx.example"], migrated: false)
        let refused = try serveUntilItExits(bad)
        XCTAssertEqual(refused.status, 1, refused.log)
        XCTAssertTrue(refused.log.contains("PUSHGATE_FASTCGI_CLIENTS"), refused.log)
    }

    /// `serve` in the background, expected to stop by itself at start-up: one that serves
    /// instead (the refusal broken) is stopped after a generous bound and reported, rather than
    /// holding the suite.
    private func serveUntilItExits(_ instance: PushgateInstance) throws -> (status: Int32?, log: String) {
        let log = instance.directory.appendingPathComponent("serve-refused.log")
        let serve = try PushgateInstance.launch(
            PushgateInstance.executable.path, ["serve"], environment: instance.environment, log: log)
        let deadline = Date(timeIntervalSinceNow: 60)
        while serve.isRunning && Date() < deadline { usleep(20_000) }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        guard !serve.isRunning else {
            serve.terminate()
            serve.waitUntilExit()
            return (nil, "serve did not stop by itself:\n" + text)
        }
        return (serve.terminationStatus, text)
    }

    /// serve on TCP answers only the listed nginx hosts: a connection from another address
    /// (a 127.0.0.x not listed, claiming REMOTE_ADDR 127.0.0.1) is closed before its request is
    /// read, and the refusals are logged at a bounded rate.
    func testAConnectionFromAHostNotListedIsClosedUnread() throws {
        let port = try freeLoopbackPort()
        let instance = try PushgateInstance(
            environment: [
                "PUSHGATE_LISTEN": "127.0.0.1:\(port)", "PUSHGATE_FASTCGI_CLIENTS": "127.0.0.2",
                // Each answer's line tells when it was written; a success's is at debug.
                "PUSHGATE_LOG_LEVEL": "debug",
            ])
        let (serve, log) = try serveOnTCP(instance, port: port, answering: "/status", from: "127.0.0.2")
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        func status(from source: String) throws -> Int {
            try FastCGIClientRequest(params: [
                ("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/status"), ("REMOTE_ADDR", "127.0.0.1"),
            ]).send(toHost: "127.0.0.1", port: port, from: source).status
        }
        for source in ["127.0.0.3", "127.0.0.1", "127.0.0.3", "127.0.0.4"] {
            XCTAssertThrowsError(try status(from: source), "\(source) is not listed") { error in
                XCTAssertTrue("\(error)".contains("closed the connection"), "\(error)")
            }
        }
        XCTAssertEqual(try status(from: "127.0.0.2"), 200, "the listed host is still answered")
        // A request's line is written after its answer is sent: wait for the second.
        func answered(_ text: String) -> Int { text.components(separatedBy: "GET /status 200").count - 1 }
        var text = ""
        let written = Date(timeIntervalSinceNow: 20)
        repeat {
            text = try String(contentsOf: log, encoding: .utf8)
            if answered(text) >= 2 { break }
            usleep(20_000)
        } while Date() < written
        let refusals = text.split(separator: "\n").filter { $0.contains("closed unread: not in PUSHGATE_FASTCGI_CLIENTS") }
        XCTAssertEqual(refusals.count, 1, "one line for four refusals within the minute:\n\(text)")
        XCTAssertTrue(refusals.first?.contains("FastCGI connection from 127.0.0.3") ?? false, text)
        XCTAssertEqual(answered(text), 2, "only the listed host's requests were read:\n\(text)")

        // doctor would ask from 127.0.0.1, which this list leaves out: it says it did not ask,
        // instead of calling serve broken.
        let doctor = try instance.cli(["doctor", "--nginx-user", "nobody"])
        let line = doctor.stdout.split(separator: "\n").first { $0.contains(" serve: ") }
        XCTAssertTrue(line?.hasPrefix("WARN serve: doctor would ask TCP 127.0.0.1:\(port) from 127.0.0.1") ?? false, doctor.stdout)
    }

    /// On TCP with the default list (loopback), doctor asks serve over the port as nginx does.
    func testDoctorAsksServeOverTCP() throws {
        let port = try freeLoopbackPort()
        let instance = try PushgateInstance(environment: ["PUSHGATE_LISTEN": "127.0.0.1:\(port)"])
        let (serve, _) = try serveOnTCP(instance, port: port, answering: "/healthz", from: "127.0.0.1")
        defer {
            serve.terminate()
            serve.waitUntilExit()
        }
        let doctor = try instance.cli(["doctor", "--nginx-user", "nobody"])
        XCTAssertTrue(doctor.stdout.contains("ok   serve: answers on TCP 127.0.0.1:\(port): GET /readyz 200 in "), doctor.stdout)
        serve.terminate()
        serve.waitUntilExit()
        let stopped = try instance.cli(["doctor", "--nginx-user", "nobody"])
        XCTAssertTrue(
            stopped.stdout.contains("FAIL serve: nothing listens on TCP 127.0.0.1:\(port): serve is not running"), stopped.stdout)
    }

    /// `instance`'s serve, on its TCP `port`, once it has answered `path` 200 to a request from
    /// `source`; the caller stops it. Its log file comes with it.
    private func serveOnTCP(_ instance: PushgateInstance, port: Int, answering path: String, from source: String) throws
        -> (Process, URL)
    {
        let log = instance.directory.appendingPathComponent("serve-tcp.log")
        let serve = try PushgateInstance.launch(
            PushgateInstance.executable.path, ["serve"], environment: instance.environment, log: log)
        let request = FastCGIClientRequest(params: [("REQUEST_METHOD", "GET"), ("REQUEST_URI", path), ("REMOTE_ADDR", "127.0.0.1")])
        let deadline = Date(timeIntervalSinceNow: 30)
        while (try? request.send(toHost: "127.0.0.1", port: port, from: source).status) != 200 {
            guard Date() < deadline, serve.isRunning else {
                serve.terminate()
                serve.waitUntilExit()
                throw ServeDidNotAnswer(description: "serve never answered \(source): \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            }
            usleep(50_000)
        }
        return (serve, log)
    }

    private struct ServeDidNotAnswer: Error, CustomStringConvertible {
        let description: String
    }
}
