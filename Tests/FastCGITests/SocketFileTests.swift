import PushTesting
import Foundation
import Glibc
import Logging
import PushCore
import XCTest

@testable import FastCGI

final class SocketFileTests: XCTestCase {
    private struct Fixed: RequestHandler {
        func handle(_ request: Request) -> Response { .text(200, "fixed") }
    }

    /// What a crashed responder leaves behind: a socket file nobody listens on.
    private func makeStaleSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let address = try XCTUnwrap(UnixSocketAddress(path: path))
        XCTAssertEqual(address.withSockaddr { bind(fd, $0, $1) }, 0)
        XCTAssertEqual(listen(fd, 1), 0)
        close(fd)
    }

    func testStaleSocketDoesNotStopANewServer() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/pushgate.sock"
        try makeStaleSocket(at: path)
        XCTAssertEqual(try SocketFile.occupant(of: path), .staleSocket)

        let server = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path, threadCount: 1))
        let (logger, _) = RecordingLogHandler.logger()
        try server.start(makeHandler: { _ in Fixed() }, logger: logger)
        XCTAssertEqual(try SocketFile.occupant(of: path), .liveSocket)
        server.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testLiveSocketRefusesASecondServerAndKeepsTheFirst() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/pushgate.sock"
        let (logger, _) = RecordingLogHandler.logger()
        let first = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path, threadCount: 1))
        try first.start(makeHandler: { _ in Fixed() }, logger: logger)

        let second = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path))
        XCTAssertThrowsError(try second.start(makeHandler: { _ in Fixed() }, logger: logger)) { error in
            XCTAssertEqual(error as? FastCGIError, .alreadyServing(path: path))
            XCTAssertEqual("\(error)", "another pushgate is serving on \(path); stop it first, or choose another socket path")
        }
        XCTAssertEqual(try SocketFile.occupant(of: path), .liveSocket)
        first.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testAFileThatIsNotASocketIsLeftAlone() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/pushgate.sqlite"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data("precious".utf8)))
        let server = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path))
        let (logger, _) = RecordingLogHandler.logger()
        XCTAssertThrowsError(try server.start(makeHandler: { _ in Fixed() }, logger: logger)) { error in
            XCTAssertEqual(error as? FastCGIError, .notASocket(path: path))
        }
        XCTAssertEqual(FileManager.default.contents(atPath: path), Data("precious".utf8))
    }

    /// The default: only the owner and the socket's group may connect, and the group is the
    /// one configured, so that nginx's workers (another user) reach it.
    func testTheSocketIsNotWorldWritableAndGetsTheConfiguredGroup() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/pushgate.sock"
        let group = getgid() == 0 ? UInt32(65534) : UInt32(getgid())  // root may give any group
        let server = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path, socketGroup: group))
        let (logger, _) = RecordingLogHandler.logger()
        try server.start(makeHandler: { _ in Fixed() }, logger: logger)
        defer { server.stop() }
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o660)
        XCTAssertEqual(UInt32(info.st_gid), group)
    }

    func testCreatesTheParentDirectoryAndSetsTheMode() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/run/deeper/pushgate.sock"
        let server = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path, socketMode: 0o660))
        let (logger, _) = RecordingLogHandler.logger()
        try server.start(makeHandler: { _ in Fixed() }, logger: logger)
        var info = stat()
        XCTAssertEqual(lstat(path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o660)
        XCTAssertEqual(lstat(directory.path + "/run/deeper", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o755)
        server.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }

    func testRejectsPathsLibfcgiWouldMisread() {
        XCTAssertThrowsError(try SocketFile.validate("/tmp/a:8080")) { error in
            guard case .invalidSocketPath = error as? FastCGIError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try SocketFile.validate("/tmp/" + String(repeating: "x", count: 120)))
        XCTAssertThrowsError(try SocketFile.validate(""))
    }

    func testAHandlerFactoryErrorStopsStartWithAClearMessage() throws {
        struct NoDatabase: Error, CustomStringConvertible { var description: String { "database is missing" } }
        let directory = try TemporaryDirectory()
        let path = directory.path + "/s.sock"
        let server = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path))
        let (logger, _) = RecordingLogHandler.logger()
        XCTAssertThrowsError(
            try server.start(
                makeHandler: { index in
                    if index == 1 { throw NoDatabase() }
                    return Fixed()
                }, logger: logger)
        ) { error in
            XCTAssertEqual(error as? FastCGIError, .handlerCreationFailed(thread: 1, reason: "database is missing"))
            XCTAssertEqual(
                "\(error)", "could not create the request handler for FastCGI thread 1: database is missing")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "a failed start leaves no socket")
        // A failed start may be retried.
        try server.start(makeHandler: { _ in Fixed() }, logger: logger)
        XCTAssertEqual(try SocketFile.occupant(of: path), .liveSocket)
        server.stop()
    }

    func testStopIsIdempotentAndDeinitCleansUp() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/s.sock"
        let (logger, _) = RecordingLogHandler.logger()
        do {
            let server = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path, threadCount: 1))
            try server.start(makeHandler: { _ in Fixed() }, logger: logger)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))

        let server = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path, threadCount: 1))
        try server.start(makeHandler: { _ in Fixed() }, logger: logger)
        server.stop()
        server.stop()
        XCTAssertThrowsError(try server.start(makeHandler: { _ in Fixed() }, logger: logger)) { error in
            XCTAssertEqual(error as? FastCGIError, .alreadyStarted)
        }
        FastCGIServer(configuration: FastCGIConfiguration(socketPath: path)).stop()  // never started
    }
}
