import Foundation
import Glibc
import PushTesting
import XCTest

@testable import FastCGI

/// The socket systemd passes (LISTEN_FDS): which variables are for this process, which
/// descriptors serve refuses, and that a server stopping leaves the shared socket listening
/// with its file in place, so that the next server answers what arrived in between.
final class ActivatedSocketTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var socketPath: String { directory.path + "/pushgate.sock" }
    private var opened: [Int32] = []

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        for descriptor in opened { close(descriptor) }
        opened = []
        directory = nil
    }

    /// A socket of `type`, bound to `socketPath`, listening unless told not to.
    private func unixSocket(type: Int32 = Int32(SOCK_STREAM.rawValue), listening: Bool = true) throws -> Int32 {
        let descriptor = socket(AF_UNIX, type, 0)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        opened.append(descriptor)
        let address = try XCTUnwrap(UnixSocketAddress(path: socketPath))
        XCTAssertEqual(address.withSockaddr { bind(descriptor, $0, $1) }, 0, String(cString: strerror(errno)))
        if listening { XCTAssertEqual(listen(descriptor, 16), 0) }
        return descriptor
    }

    func testTheVariablesCountOnlyForTheProcessTheyName() throws {
        XCTAssertNil(try ActivatedSocket.passedDescriptor([:], processID: 42))
        XCTAssertNil(try ActivatedSocket.passedDescriptor(["LISTEN_FDS": "1"], processID: 42))
        // Inherited from an activated parent: meant for that process, not this one.
        XCTAssertNil(try ActivatedSocket.passedDescriptor(["LISTEN_FDS": "1", "LISTEN_PID": "41"], processID: 42))
        XCTAssertNil(try ActivatedSocket.passedDescriptor(["LISTEN_FDS": "0", "LISTEN_PID": "42"], processID: 42))
        XCTAssertEqual(try ActivatedSocket.passedDescriptor(["LISTEN_FDS": "1", "LISTEN_PID": "42"], processID: 42), 3)
    }

    func testMoreThanOneDescriptorOrNoNumberIsRefused() {
        XCTAssertThrowsError(
            try ActivatedSocket.passedDescriptor(["LISTEN_FDS": "2", "LISTEN_PID": "42"], processID: 42)
        ) {
            XCTAssertTrue("\($0)".contains("passes 2 descriptors"), "\($0)")
        }
        XCTAssertThrowsError(
            try ActivatedSocket.passedDescriptor(["LISTEN_FDS": "one", "LISTEN_PID": "42"], processID: 42)
        ) {
            XCTAssertTrue("\($0)".contains("LISTEN_FDS is one"), "\($0)")
        }
    }

    func testTakeUnsetsTheVariablesEvenWhenTheyNameAnotherProcess() throws {
        setenv("LISTEN_FDS", "1", 1)
        setenv("LISTEN_PID", String(getpid() + 1), 1)
        setenv("LISTEN_FDNAMES", "pushgate.socket", 1)
        XCTAssertNil(try ActivatedSocket.take())
        for key in ActivatedSocket.variables { XCTAssertNil(getenv(key), key) }
    }

    func testAListeningUnixSocketIsTakenWithItsPathAndMarkedCloseOnExec() throws {
        let descriptor = try unixSocket()
        let activated = try ActivatedSocket.inspect(descriptor, name: "pushgate.socket")
        XCTAssertEqual(activated.family, .unix)
        XCTAssertEqual(activated.address, socketPath)
        XCTAssertFalse(activated.isTCP)
        XCTAssertEqual(activated.description, "\(socketPath) (passed by systemd, named pushgate.socket)")
        XCTAssertNotEqual(fcntl(descriptor, F_GETFD) & FD_CLOEXEC, 0)
    }

    func testAListeningTCPSocketIsTakenWithItsAddress() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        opened.append(descriptor)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(descriptor, 16), 0)
        let activated = try ActivatedSocket.inspect(descriptor, name: nil)
        XCTAssertEqual(activated.family, .inet)
        XCTAssertTrue(activated.isTCP)
        XCTAssertTrue(activated.address.hasPrefix("127.0.0.1:"), activated.address)
        XCTAssertNotNil(activated.port)
        XCTAssertEqual(FastCGIConfiguration(socketPath: "/unused", activatedSocket: activated).listensOnTCP, true)
    }

    func testASocketNobodyListensOnADatagramSocketAndAPipeAreRefused() throws {
        XCTAssertThrowsError(try ActivatedSocket.inspect(try unixSocket(listening: false), name: nil)) {
            XCTAssertTrue("\($0)".contains("nobody listens on"), "\($0)")
        }
        unlink(socketPath)
        XCTAssertThrowsError(
            try ActivatedSocket.inspect(try unixSocket(type: Int32(SOCK_DGRAM.rawValue), listening: false), name: nil)
        ) {
            XCTAssertTrue("\($0)".contains("not a stream socket"), "\($0)")
        }
        var pipeEnds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&pipeEnds), 0)
        opened += pipeEnds
        XCTAssertThrowsError(try ActivatedSocket.inspect(pipeEnds[0], name: nil)) {
            XCTAssertTrue("\($0)".contains("is not a socket"), "\($0)")
        }
    }

    /// What a restart under systemd does: the socket outlives each server. A connection made
    /// after the first server stopped waits in the backlog, and the second answers it.
    func testAStoppedServerLeavesTheSharedSocketListeningForTheNext() throws {
        let held = try unixSocket()
        func server() throws -> FastCGIServer {
            // Each server gets its own descriptor of the one socket, as each serve does.
            let activated = try ActivatedSocket.inspect(dup(held), name: nil)
            let server = FastCGIServer(
                configuration: FastCGIConfiguration(
                    socketPath: directory.path + "/unused.sock", threadCount: 1, activatedSocket: activated))
            try server.start(makeHandler: { EchoHandler(thread: $0) }, logger: RecordingLogHandler.logger().0)
            return server
        }
        let first = try server()
        let before = try RawFastCGIConnection(path: socketPath)
        XCTAssertTrue(try before.request(id: 1, path: "/first", keepConnection: false).hasPrefix("Status: 200"))
        first.stop()
        XCTAssertEqual(
            try SocketFile.occupant(of: socketPath), .liveSocket, "the socket file went, or stopped listening")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.path + "/unused.sock"))

        let between = try RawFastCGIConnection(path: socketPath)
        let second = try server()
        defer { second.stop() }
        let reply = try between.request(id: 1, path: "/between", keepConnection: false)
        XCTAssertTrue(reply.hasPrefix("Status: 200"), reply)
        XCTAssertTrue(reply.contains(#""path":"\/between""#), reply)
    }
}
