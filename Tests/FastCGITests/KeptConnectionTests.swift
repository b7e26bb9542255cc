import Logging
import PushTesting
import Foundation
import Glibc
import PushCore
import XCTest

@testable import FastCGI

/// The responder with connections kept open (FCGI_KEEP_CONN, nginx's `fastcgi_keep_conn on`),
/// spoken to byte by byte: several requests on one connection, and stopping while a kept
/// connection idles.
final class KeptConnectionTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var server: FastCGIServer!
    private var logs: RecordingLogHandler.Store!
    private var socketPath: String { directory.path + "/pushgate.sock" }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        let (logger, store) = RecordingLogHandler.logger()
        logs = store
        server = FastCGIServer(
            configuration: FastCGIConfiguration(socketPath: socketPath, threadCount: 1, drainTimeoutSeconds: 5))
        try server.start(makeHandler: { EchoHandler(thread: $0) }, logger: logger)
    }

    override func tearDown() {
        server?.stop()
        server = nil
        directory = nil
    }

    func testOneConnectionCarriesRequestAfterRequest() throws {
        let connection = try RawFastCGIConnection(path: socketPath)
        for number in 1...3 {
            let reply = try connection.request(id: UInt16(number), path: "/item/\(number)", keepConnection: true)
            XCTAssertTrue(reply.hasPrefix("Status: 200"), reply)
            XCTAssertTrue(reply.contains(#""path":"\/item\/\#(number)""#), reply)
        }
        XCTAssertTrue(connection.isOpen)
    }

    func testOneThreadServesSeveralKeptConnectionsInTurn() throws {
        let first = try RawFastCGIConnection(path: socketPath)
        let second = try RawFastCGIConnection(path: socketPath)
        // One thread: were it bound to the first connection, the second would never be read.
        for (number, connection) in [first, second, first, second].enumerated() {
            let reply = try connection.request(id: 1, path: "/turn/\(number)", keepConnection: true)
            XCTAssertTrue(reply.contains(#""path":"\/turn\/\#(number)""#), reply)
        }
        XCTAssertTrue(first.isOpen)
        XCTAssertTrue(second.isOpen)
    }

    func testAKeptConnectionClosedByNginxIsLetGo() throws {
        var first: RawFastCGIConnection? = try RawFastCGIConnection(path: socketPath)
        _ = try first?.request(id: 1, path: "/first", keepConnection: true)
        first = nil  // closes it, as nginx does with a kept connection it no longer wants
        let second = try RawFastCGIConnection(path: socketPath)
        let reply = try second.request(id: 1, path: "/second", keepConnection: true)
        XCTAssertTrue(reply.hasPrefix("Status: 200"), reply)
    }

    func testOutOfDescriptorsTheListenerRestsAndServesOnceSomeAreFree() throws {
        var original = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_NOFILE.rawValue), &original), 0)
        defer { _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &original) }
        // Room for the client's socket and nothing more: the responder's accept gets EMFILE.
        // (The limit bounds descriptor numbers: the client takes the lowest free one.)
        let lowestFree = dup(0)
        close(lowestFree)
        var tight = original
        tight.rlim_cur = rlim_t(lowestFree + 1)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &tight), 0)
        let connection = try RawFastCGIConnection(path: socketPath)
        let acceptFailures = { self.logs.all.filter { $0.message.hasPrefix("FastCGI accept failed") }.count }
        // When the listener first tries is the scheduler's business: wait for it.
        let deadline = Date().addingTimeInterval(20)
        while acceptFailures() == 0, Date() < deadline { usleep(10_000) }
        let first = acceptFailures()
        XCTAssertGreaterThan(first, 0, "the accept never failed: \(logs.all.map(\.message))")
        // Resting between tries: a few a second, not a thread spinning on the same failure (a
        // busy machine only makes fewer).
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertLessThan(acceptFailures() - first, 30)

        XCTAssertEqual(setrlimit(Int32(RLIMIT_NOFILE.rawValue), &original), 0)
        let reply = try connection.request(id: 1, path: "/after", keepConnection: true)
        XCTAssertTrue(reply.hasPrefix("Status: 200"), reply)
    }

    func testWithoutKeepConnTheResponderCloses() throws {
        let connection = try RawFastCGIConnection(path: socketPath)
        let reply = try connection.request(id: 1, path: "/once", keepConnection: false)
        XCTAssertTrue(reply.hasPrefix("Status: 200"), reply)
        XCTAssertFalse(connection.isOpen)
    }

    func testStoppingClosesAnIdleKeptConnection() throws {
        let connection = try RawFastCGIConnection(path: socketPath)
        _ = try connection.request(id: 1, path: "/first", keepConnection: true)

        server.stop()
        // Had the thread stayed in its read on the kept connection, stopping would have given
        // up on it after the drain timeout and said so instead.
        XCTAssertFalse(connection.isOpen)
        XCTAssertTrue(logs.all.contains { $0.message == "FastCGI server stopped" }, "\(logs.all.map(\.message))")
    }
}

/// A kept connection idle when the server begins to stop is closed at once, not after the
/// requests in flight are answered: nginx would otherwise send its next request on a
/// connection nobody reads while the drain lasts, and a POST written there gets no answer.
final class StoppingWithKeptConnectionsTests: XCTestCase {
    /// Echoes, but holds `/gated` until the test opens the gate, saying when it holds one.
    struct GatedHandler: RequestHandler {
        let gate: DispatchSemaphore
        let holding: DispatchSemaphore

        func handle(_ request: Request) -> Response {
            if request.path == "/gated" {
                holding.signal()
                gate.wait()
            }
            return EchoHandler(thread: 0).handle(request)
        }
    }

    func testAnIdleKeptConnectionClosesWhileARequestInFlightIsStillAnswered() throws {
        let directory = try TemporaryDirectory()
        let socketPath = directory.path + "/pushgate.sock"
        let gate = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let server = FastCGIServer(
            configuration: FastCGIConfiguration(socketPath: socketPath, threadCount: 2, drainTimeoutSeconds: 30))
        try server.start(makeHandler: { _ in GatedHandler(gate: gate, holding: holding) }, logger: Logger(label: "test"))
        defer { server.stop() }

        let idle = try RawFastCGIConnection(path: socketPath)
        XCTAssertTrue(try idle.request(id: 1, path: "/first", keepConnection: true).hasPrefix("Status: 200"))
        // A request in flight, held: the drain cannot end before the gate opens.
        nonisolated(unsafe) let inFlight = try RawFastCGIConnection(path: socketPath)
        let answered = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var reply = ""
        Thread.detachNewThread {
            reply = (try? inFlight.request(id: 1, path: "/gated", keepConnection: true)) ?? "no answer"
            answered.signal()
        }
        // Stopping must begin while the request is in the handler: begun before serve had read
        // it, its connection would still be idle and rightly closed unanswered.
        XCTAssertEqual(holding.wait(timeout: .now() + 60), .success, "the held request never reached the handler")
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.stop()
            stopped.signal()
        }

        XCTAssertTrue(idle.closes(within: 20), "closed while the held request still runs")
        XCTAssertEqual(answered.wait(timeout: .now() + 0.2), .timedOut, "the held request is still running")
        gate.signal()
        XCTAssertEqual(answered.wait(timeout: .now() + 20), .success)
        XCTAssertTrue(reply.hasPrefix("Status: 200"), reply)
        XCTAssertTrue(inFlight.closes(within: 20), "answered, then closed rather than kept")
        XCTAssertEqual(stopped.wait(timeout: .now() + 20), .success)
    }
}

/// A FastCGI client on a Unix socket, as nginx speaks it (records of the FastCGI 1.0
/// specification: BEGIN_REQUEST, PARAMS, STDIN in; STDOUT, END_REQUEST out).
final class RawFastCGIConnection {
    private let descriptor: Int32

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    /// True while the responder has not closed its side (waits briefly for a close in flight).
    var isOpen: Bool {
        var probe = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&probe, 1, 1000) > 0 else { return true }
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_PEEK)) > 0
    }

    /// Whether the responder closes its side within `seconds` (a bound for a busy machine,
    /// not a measure): polled, since the close may come a moment after what the test awaits.
    func closes(within seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        while Date() < deadline {
            if !isOpen { return true }
        }
        return false
    }

    /// Sends one GET and returns its STDOUT once END_REQUEST arrives.
    func request(id: UInt16, path: String, keepConnection: Bool) throws -> String {
        var out: [UInt8] = []
        out += record(type: 1, id: id, content: [0, 1, keepConnection ? 1 : 0, 0, 0, 0, 0, 0])
        var params: [UInt8] = []
        for (name, value) in [("REQUEST_METHOD", "GET"), ("REQUEST_URI", path), ("SCRIPT_NAME", path)] {
            params += [UInt8(name.utf8.count), UInt8(value.utf8.count)] + Array(name.utf8) + Array(value.utf8)
        }
        out += record(type: 4, id: id, content: params)
        out += record(type: 4, id: id, content: [])
        out += record(type: 5, id: id, content: [])
        guard out.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, 0) }) == out.count else {
            throw Failure(description: "send failed")
        }
        var stdout: [UInt8] = []
        while true {
            let header = try read(8)
            let type = header[1]
            let length = Int(header[4]) << 8 | Int(header[5])
            let content = try read(length + Int(header[6]))
            if type == 6 { stdout += content.prefix(length) }
            if type == 3 { return String(decoding: stdout, as: UTF8.self) }
        }
    }

    private func record(type: UInt8, id: UInt16, content: [UInt8]) -> [UInt8] {
        [1, type, UInt8(id >> 8), UInt8(id & 0xff), UInt8(content.count >> 8), UInt8(content.count & 0xff), 0, 0]
            + content
    }

    private func read(_ count: Int) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let received = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + filled, count - filled, 0) }
            guard received > 0 else { throw Failure(description: "the responder closed the connection mid-reply") }
            filled += received
        }
        return bytes
    }
}
