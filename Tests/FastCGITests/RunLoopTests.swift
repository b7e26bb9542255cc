import PushTesting
import Foundation
import Logging
import PushCore
import XCTest

@testable import FastCGI

/// `run` on its own thread, ended by `stop()` from another: the path the App takes, minus a
/// process-wide signal (which would reach the test runner's other threads).
final class RunTests: XCTestCase {
    private struct Fixed: RequestHandler {
        func handle(_ request: Request) -> Response { .text(200, "fixed") }
    }

    func testStopWakesRunAndRemovesTheSocket() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/pushgate.sock"
        let server = FastCGIServer(configuration: FastCGIConfiguration(socketPath: path, threadCount: 2))
        let (logger, store) = RecordingLogHandler.logger()
        let finished = NSCondition()
        nonisolated(unsafe) var returned = false
        let runner = Thread {
            try? server.run(makeHandler: { _ in Fixed() }, logger: logger)
            finished.lock()
            returned = true
            finished.broadcast()
            finished.unlock()
        }
        runner.start()
        for _ in 0..<100 where !store.all.contains(where: { $0.message.hasPrefix("FastCGI listening") }) { usleep(10_000) }
        XCTAssertEqual(try SocketFile.occupant(of: path), .liveSocket)

        server.stop()
        finished.lock()
        let deadline = Date(timeIntervalSinceNow: 5)
        while !returned && finished.wait(until: deadline) {}
        let didReturn = returned
        finished.unlock()
        XCTAssertTrue(didReturn)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertFalse(store.all.contains { $0.message.hasPrefix("received") }, "stop() is not a signal")
    }
}
