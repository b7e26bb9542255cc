import Foundation
import PushTesting
import XCTest

/// The responder stays up whatever clients do to the connection.
final class ResilienceTests: XCTestCase {
    func testClientsHangingUpMidRequestDoNotStopTheResponder() throws {
        let pushgate = try PushgateInstance()
        try pushgate.start()
        defer { pushgate.stop() }
        let request = "GET /token/?selector=HANGUP0000000000:1&token_msgs=QUJDREVGR0g%3D&appid_msgs=com.example HTTP/1.1\r\nHost: x\r\n\r\n"
        // nginx aborts each of these upstream, closing the FastCGI connection while pushgate
        // may still be writing its answer (this once ended the process with SIGPIPE).
        // 16 × 20 abandoned requests stay within the socket's listen backlog (1024) even when
        // nginx has passed on all of them before pushgate answers the first: more would test
        // overload (nginx answers 502 when the backlog is full), not hang-ups.
        let client = pushgate.client
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            for _ in 0..<20 {
                try? client.sendAndHangUp(Array(request.utf8))
            }
        }
        let response = try pushgate.client.get("/healthz")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertTrue(pushgate.isServing, pushgate.serveLog)
    }
}
