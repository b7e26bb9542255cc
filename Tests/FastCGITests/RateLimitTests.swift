import Foundation
import PushTesting
import XCTest

/// The phone-facing routes are rate-limited per client address, loopback exempt. Each test
/// sends 300 requests at once: more than the burst of 200 plus what 20 r/s refills meanwhile.
final class RateLimitTests: XCTestCase {
    private func statuses(port: Int, target: String, count: Int = 300) throws -> [Int: Int] {
        let client = HTTPClient(port: port, timeoutSeconds: 10)
        var counts: [Int: Int] = [:]
        for _ in 0..<count {
            counts[try client.get(target).status, default: 0] += 1
        }
        return counts
    }

    func testLoopbackIsNotLimited() throws {
        let directory = try TemporaryDirectory()
        let nginx = try NginxProcess(
            prefix: directory.url.appendingPathComponent("nginx"), port: try freeLoopbackPort(),
            socketPath: directory.path + "/run/pushgate.sock", maxBody: "2m", workers: 1)
        defer { nginx.stop() }
        // No responder: every request that passes the limit gets the 502 text.
        XCTAssertEqual(try statuses(port: nginx.port, target: "/token?a=1"), [502: 300])
    }

    func testOtherClientsAreLimitedWith429Text() throws {
        let directory = try TemporaryDirectory()
        // Treat loopback like any client, to see the limit from here.
        let nginx = try NginxProcess(
            prefix: directory.url.appendingPathComponent("nginx"), port: try freeLoopbackPort(),
            socketPath: directory.path + "/run/pushgate.sock", maxBody: "2m", workers: 1,
            adjust: { prefix in
                let file = prefix.appendingPathComponent("pushgate.conf")
                let conf = try String(contentsOf: file, encoding: .utf8)
                XCTAssertTrue(conf.contains("127.0.0.0/8 1;"))
                try conf.replacingOccurrences(of: "127.0.0.0/8 1;", with: "")
                    .write(to: file, atomically: true, encoding: .utf8)
            })
        defer { nginx.stop() }

        let limited = try statuses(port: nginx.port, target: "/client_api/v1/instances/x/devices/apns")
        XCTAssertGreaterThan(limited[429, default: 0], 0, "\(limited)")
        XCTAssertGreaterThanOrEqual(limited[502, default: 0], 200, "\(limited)")
        let response = try HTTPClient(port: nginx.port, timeoutSeconds: 10).request("POST", "/token")
        XCTAssertEqual(response.status, 429)
        XCTAssertEqual(response.text, "too many requests, slow down\n")
        XCTAssertTrue(response.header("content-type")?.hasPrefix("text/plain") ?? false)

        // Send-side routes are not limited.
        XCTAssertEqual(try statuses(port: nginx.port, target: "/pnm2/send", count: 250), [502: 250])
    }
}
