@testable import App
import FastCGI
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Whether `serve` answers where nginx reaches it: a real FastCGI exchange with a responder
/// this test plays (answering 200 or 503), a socket that accepts nothing (as systemd holds one
/// while `serve` cannot start), a socket file nobody listens on, and none at all.
final class ServeAnswerCheckTests: ScratchDirectoryTestCase {
    private var socketPath: String { scratch.file("pushgate.sock") }
    private var descriptors: [Int32] = []

    override func tearDown() {
        descriptors.forEach { close($0) }
        descriptors = []
        super.tearDown()
    }

    private func listeningSocket() throws -> Int32 {
        let descriptor = try DoctorFixtures.bindSocket(at: socketPath)
        descriptors.append(descriptor)
        XCTAssertEqual(listen(descriptor, 8), 0)
        return descriptor
    }

    /// Plays `serve` for one connection: reads the request up to its empty STDIN record and
    /// answers `head` and `body` as a responder's STDOUT, then END_REQUEST. Returns the params
    /// the request carried.
    private func answerOnce(on listener: Int32, head: String, body: String) -> XCTestExpectation {
        let served = expectation(description: "the responder answered")
        let thread = Thread {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            // The request ends with STDIN's empty record: type 5, content length 0.
            while !Self.endsWithEmptyStdin(received) {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                received += buffer[0..<count]
            }
            let stdout = Array((head + "\r\n\r\n" + body).utf8)
            var reply: [UInt8] = [1, 6, 0, 1, UInt8(stdout.count >> 8), UInt8(stdout.count & 0xff), 0, 0] + stdout
            reply += [1, 6, 0, 1, 0, 0, 0, 0]
            reply += [1, 3, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
            _ = reply.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            served.fulfill()
        }
        thread.start()
        return served
    }

    private static func endsWithEmptyStdin(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && Array(bytes.suffix(8)) == [1, 5, 0, 1, 0, 0, 0, 0]
    }

    func testAResponderAnswering200IsOk() throws {
        let served = answerOnce(on: try listeningSocket(), head: "Status: 200 OK\r\nContent-Type: text/plain", body: "ready")
        let findings = ServeAnswerCheck(target: .socket(socketPath), timeoutSeconds: 5).run()
        wait(for: [served], timeout: 10)
        XCTAssertEqual(findings.map(\.verdict), [.ok], "\(findings)")
        XCTAssertTrue(findings[0].description.hasPrefix("ok   serve: answers on \(socketPath): GET /readyz 200 in "), "\(findings)")
    }

    func testAResponderNotReadyIsAProblemThatSaysWhereToLook() throws {
        let served = answerOnce(on: try listeningSocket(), head: "Status: 503 Service Unavailable\r\nRetry-After: 5", body: "not ready")
        let findings = ServeAnswerCheck(target: .socket(socketPath), timeoutSeconds: 5).run()
        wait(for: [served], timeout: 10)
        XCTAssertEqual(findings.map(\.verdict), [.problem], "\(findings)")
        XCTAssertTrue(findings[0].message.contains("is not ready (GET /readyz 503)"), findings[0].message)
        XCTAssertTrue(findings[0].message.contains("journalctl -u pushgate"), findings[0].message)
    }

    /// What nginx meets while systemd holds the socket and `serve` does not start: the
    /// connection is taken into the backlog and nothing answers.
    func testASocketNobodyAcceptsOnIsNoAnswerWithinTheTimeout() throws {
        _ = try listeningSocket()
        let started = Date()
        let findings = ServeAnswerCheck(target: .socket(socketPath), timeoutSeconds: 1).run()
        XCTAssertEqual(findings.map(\.verdict), [.problem], "\(findings)")
        XCTAssertTrue(findings[0].message.hasPrefix("nothing answered GET /readyz on \(socketPath) within 1 s"), findings[0].message)
        // Bounded by the timeout, not by the kernel's or a test runner's patience.
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
    }

    func testASocketFileNobodyListensOnMeansServeIsNotRunning() throws {
        descriptors.append(try DoctorFixtures.bindSocket(at: socketPath))
        let findings = ServeAnswerCheck(target: .socket(socketPath), timeoutSeconds: 1).run()
        XCTAssertEqual(findings.map(\.description), ["FAIL serve: nothing listens on \(socketPath): serve is not running (systemctl status pushgate; journalctl -u pushgate says why)"])
    }

    /// Without a socket file the socket check has said so already: no second line.
    func testNoSocketFileAddsNothing() {
        XCTAssertEqual(ServeAnswerCheck(target: .socket(socketPath), timeoutSeconds: 1).run(), [])
    }

    /// serve would close a connection from a host its list leaves out, unread: doctor does not
    /// try, and says it did not ask, rather than calling a healthy serve broken.
    func testATCPListenerWhoseListLeavesThisHostOutIsNotAsked() throws {
        let address = try XCTUnwrap(TCPListenAddress("0.0.0.0:9"))
        let clients = try XCTUnwrap(FastCGIClients(listing: "10.0.0.2"))
        let findings = ServeAnswerCheck(target: .tcp(address, clients: clients), timeoutSeconds: 1).run()
        XCTAssertEqual(
            findings.map(\.description),
            ["WARN serve: doctor would ask TCP 0.0.0.0:9 from 127.0.0.1, which PUSHGATE_FASTCGI_CLIENTS (10.0.0.2) leaves out, "
                + "so it did not ask whether serve answers: ask GET /readyz through nginx instead"])
    }

    func testOutcomesThatNeedNoLiveSocket() throws {
        let address = try XCTUnwrap(TCPListenAddress("127.0.0.1:9000"))
        func findings(_ reason: FastCGIClientRequest.Failure.Reason, _ target: ServeAnswerCheck.Target) -> [DoctorFinding] {
            ServeAnswerCheck.findings(
                for: .failed(FastCGIClientRequest.Failure(reason: reason, description: "the failure's own words")), target: target,
                timeoutSeconds: 5, doctorUser: "alice")
        }
        // Who may not connect cannot ask: a warning, not a verdict on serve.
        let denied = findings(.cannotConnect(EACCES), .socket(socketPath))
        XCTAssertEqual(denied.map(\.verdict), [.warning])
        XCTAssertTrue(denied[0].message.hasPrefix("doctor (running as alice) may not connect to \(socketPath)"), denied[0].message)
        let closed = findings(.closed, .tcp(address, clients: .loopback))
        XCTAssertEqual(closed.map(\.verdict), [.problem])
        XCTAssertTrue(closed[0].message.hasPrefix("TCP 127.0.0.1:9000 closed the connection without answering"), closed[0].message)
        // Anything else says what happened, in the failure's words.
        let other = findings(.other, .socket(socketPath))
        XCTAssertEqual(other.map(\.verdict), [.problem])
        XCTAssertTrue(other[0].message.contains("the failure's own words"), other[0].message)
        // A responder that is not serve's /readyz.
        let teapot = ServeAnswerCheck.findings(
            for: .answered(status: 404, milliseconds: 3), target: .tcp(address, clients: .loopback), timeoutSeconds: 5,
            doctorUser: "alice")
        XCTAssertEqual(teapot.map(\.description), ["FAIL serve: GET /readyz on TCP 127.0.0.1:9000 was answered 404, not 200: is that pushgate's serve?"])
    }
}
