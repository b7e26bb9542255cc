import Foundation
import PushTesting
import XCTest

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
        let line = exposed.stdout.split(separator: "\n").first { $0.contains("FastCGI listens on TCP 0.0.0.0:9000") }
        XCTAssertNotNil(line, exposed.stdout)
        XCTAssertTrue(line?.contains("WARN") ?? false, exposed.stdout)
        XCTAssertTrue(line?.contains("allow only your nginx hosts") ?? false, exposed.stdout)
    }
}
