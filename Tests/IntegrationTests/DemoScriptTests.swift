import Foundation
import PushTesting
import XCTest

/// `scripts/demo`, end to end: the mocks, `scripts/run`, a push through every dialect, with
/// the debug binaries the tests run beside.
final class DemoScriptTests: XCTestCase {
    func testEveryDialectsPushReachesTheMocks() throws {
        let demo = try runDemo()
        XCTAssertEqual(demo.status, 0, demo.output)
        XCTAssertTrue(demo.output.contains("demo: every push went through"), demo.output)
        XCTAssertFalse(demo.output.contains("FAIL"), demo.output)
        XCTAssertTrue(demo.output.contains("ok    Matrix: notify an app not open to Matrix"), demo.output)
        // What the mocks counted when they stopped: the Acrobits account's push, the cospace
        // event's, Beams', the bridge's, the Matrix notify's and `pushgate send`'s on APNs; pnm2's, cospace's and
        // the bridge's on FCM, after one access token from its OAuth endpoint.
        let lines = demo.output.split(separator: "\n")
        let apns = try XCTUnwrap(lines.first { $0.contains("apns (production) stopping") }, demo.output)
        XCTAssertTrue(apns.hasSuffix("requests 6 (200: 6), resets 0, goaways 0"), String(apns))
        let fcm = try XCTUnwrap(lines.first { $0.contains("fcm stopping") }, demo.output)
        XCTAssertTrue(fcm.hasSuffix("requests 4 (200: 4), resets 0, goaways 0"), String(fcm))
    }

    /// The mocks' command line injects failures; the demo says which push they hit.
    func testAFailureInjectedIntoTheMockIsShown() throws {
        let demo = try runDemo(["--fcm", "--fail-token demo-fcm-pnm2:404:UNREGISTERED"])
        XCTAssertEqual(demo.status, 1, demo.output)
        let failed = demo.output.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
        XCTAssertEqual(failed.count, 1, demo.output)
        XCTAssertTrue(failed.first?.contains("pnm2 send: to an FCM token") ?? false, demo.output)
        XCTAssertTrue(failed.first?.contains(#""code": 404"#) ?? false, demo.output)
        XCTAssertTrue(demo.output.contains("demo: 1 step(s) failed"), demo.output)
    }

    private func runDemo(_ arguments: [String] = []) throws -> (status: Int32, output: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-demo-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        return try RepositoryScript.run(
            "demo", arguments: arguments,
            environment: ["PUSHGATE_DEMO_DIR": directory.path, "PUSHGATE_HTTP_PORT": String(try freeLoopbackPort())])
    }
}
