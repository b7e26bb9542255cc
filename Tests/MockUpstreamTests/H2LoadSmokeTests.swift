import Foundation
import MockUpstream
import XCTest

/// h2load (nghttp2-client), the benchmark's yardstick, against the mock APNs: every request of
/// a multiplexed run on one connection must succeed, and the counters must agree.
final class H2LoadSmokeTests: XCTestCase {
    static let h2load = "/usr/bin/h2load"

    func testH2LoadRunSucceedsOnOneConnection() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.h2load), "h2load is not installed")
        let apns = try startAPNs {
            $0.recordRequests = false; $0.eventLoopThreads = 2
        }
        defer { apns.shutdown() }
        let payload = FileManager.default.temporaryDirectory.appendingPathComponent("h2load-\(UUID().uuidString).json")
        try Data(alertPayload).write(to: payload)
        defer { try? FileManager.default.removeItem(at: payload) }

        let requests = 1000  // a debug build serves a few hundred a second: keep the smoke quick
        let (exitCode, stdout, stderr) = try runProcess(
            Self.h2load,
            [
                "-n", String(requests), "-c", "1", "-m", "100", "-d", payload.path,
                "-H", "authorization: bearer \(try APNsTestKey.token())", "-H", "apns-topic: com.example.pushgate",
                "-H", "apns-push-type: alert", apns.url(token: deviceToken()),
            ])
        XCTAssertEqual(exitCode, 0, stderr)
        XCTAssertTrue(stdout.contains("\(requests) succeeded"), stdout)
        XCTAssertTrue(stdout.contains("status codes: \(requests) 2xx"), stdout)
        XCTAssertEqual(apns.log.counters.byStatus, [200: requests])
        XCTAssertEqual(apns.connectionCount, 1)
        if let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }) {
            print("h2load against MockAPNs (debug build): \(line)")
        }
    }
}
