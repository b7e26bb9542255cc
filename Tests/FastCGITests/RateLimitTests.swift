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
        // Treat loopback like any client, to see the limit from here. The burst stays 200, but
        // the bucket refills at one a minute instead of 20 a second: at 20 r/s a machine busy
        // for 50 ms between the last limited request and the next let that one through.
        let nginx = try NginxProcess(
            prefix: directory.url.appendingPathComponent("nginx"), port: try freeLoopbackPort(),
            socketPath: directory.path + "/run/pushgate.sock", maxBody: "2m", workers: 1,
            adjust: { prefix in
                let file = prefix.appendingPathComponent("pushgate.conf")
                var conf = try String(contentsOf: file, encoding: .utf8)
                for (old, new) in [("127.0.0.0/8 1;", ""), ("rate=20r/s", "rate=1r/m")] {
                    XCTAssertTrue(conf.contains(old), old)
                    conf = conf.replacingOccurrences(of: old, with: new)
                }
                try conf.write(to: file, atomically: true, encoding: .utf8)
            })
        defer { nginx.stop() }

        let limited = try statuses(port: nginx.port, target: "/client_api/v1/instances/x/devices/apns")
        XCTAssertGreaterThan(limited[429, default: 0], 0, "\(limited)")
        XCTAssertGreaterThanOrEqual(limited[502, default: 0], 200, "\(limited)")
        XCTAssertLessThanOrEqual(limited[502, default: 0], 202, "the burst, and what a minute refills: \(limited)")
        let response = try HTTPClient(port: nginx.port, timeoutSeconds: 10).request("POST", "/token")
        XCTAssertEqual(response.status, 429)
        XCTAssertEqual(response.text, "too many requests, slow down\n")
        XCTAssertTrue(response.header("content-type")?.hasPrefix("text/plain") ?? false)

        // Send-side routes are not limited.
        XCTAssertEqual(try statuses(port: nginx.port, target: "/pnm2/send", count: 250), [502: 250])
    }

    /// nginx with the phone-facing limit at one request a minute (no burst but one), taking the
    /// client address from X-Forwarded-For (realip), so that a test can be any client.
    private func strictNginx(_ directory: TemporaryDirectory) throws -> NginxProcess {
        try NginxProcess(
            prefix: directory.url.appendingPathComponent("nginx"), port: try freeLoopbackPort(),
            socketPath: directory.path + "/run/pushgate.sock", maxBody: "2m", workers: 1,
            adjust: { prefix in
                let file = prefix.appendingPathComponent("pushgate.conf")
                var conf = try String(contentsOf: file, encoding: .utf8)
                for (old, new) in [
                    ("rate=20r/s", "rate=1r/m"), ("burst=200", "burst=1"),
                    ("server_tokens off;", "server_tokens off; set_real_ip_from 127.0.0.1; real_ip_header X-Forwarded-For;"),
                ] {
                    XCTAssertTrue(conf.contains(old), old)
                    conf = conf.replacingOccurrences(of: old, with: new)
                }
                try conf.write(to: file, atomically: true, encoding: .utf8)
            })
    }

    private func status(_ nginx: NginxProcess, _ target: String, from address: String) throws -> Int {
        try HTTPClient(port: nginx.port, timeoutSeconds: 10).get(target, headers: ["X-Forwarded-For": address]).status
    }

    /// An IPv6 client is one client across its /64; an IPv4 client is its address.
    func testIPv6ClientsAreLimitedPerSlash64() throws {
        let directory = try TemporaryDirectory()
        let nginx = try strictNginx(directory)
        defer { nginx.stop() }
        // One request a minute plus a burst of one; 502 is "passed the limit" (no responder).
        XCTAssertEqual(try status(nginx, "/token", from: "2001:db8:1:2::a"), 502)
        XCTAssertEqual(try status(nginx, "/token", from: "2001:db8:1:2::b"), 502)
        XCTAssertEqual(try status(nginx, "/token", from: "2001:db8:1:2:ffff:1:2:3"), 429, "the same /64")
        XCTAssertEqual(try status(nginx, "/token", from: "2001:db8:1:3::a"), 502, "another /64")
        XCTAssertEqual(try status(nginx, "/token", from: "192.0.2.1"), 502)
        XCTAssertEqual(try status(nginx, "/token", from: "192.0.2.2"), 502, "IPv4 addresses count alone")
    }

    /// No path escapes the phone-facing limit: `location /` has it too (as has a path nginx
    /// normalises into it), while the send-side locations stay unlimited.
    func testEveryLocationButTheSendSideIsLimited() throws {
        let directory = try TemporaryDirectory()
        let nginx = try strictNginx(directory)
        defer { nginx.stop() }
        let client = "192.0.2.7"
        XCTAssertEqual(try status(nginx, "/healthz", from: client), 502)
        XCTAssertEqual(try status(nginx, "/token/../healthz", from: client), 502)
        XCTAssertEqual(try status(nginx, "/pushToken/../anything", from: client), 429)
        XCTAssertEqual(try status(nginx, "/removeAccount/x", from: client), 429)
        for _ in 0..<5 {
            XCTAssertEqual(try status(nginx, "/pnm2/send", from: client), 502)
            XCTAssertEqual(try status(nginx, "/publish_api/v1/instances/x/publishes", from: client), 502)
            XCTAssertEqual(try status(nginx, "/push/topics/a", from: client), 502)
        }
    }
}
