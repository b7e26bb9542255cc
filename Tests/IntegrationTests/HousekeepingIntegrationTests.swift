import Foundation
import PushTesting
import XCTest

/// Housekeeping as `serve` runs it: a device unseen past the retention goes, a fresh one
/// stays, and `pushgate outbox` shows the run. Its first run comes about a minute after
/// start, so this test waits that long (the store suite tests the rules themselves).
final class HousekeepingIntegrationTests: XCTestCase {
    func testServeRemovesADeviceUnseenPastTheRetention() throws {
        let pushgate = try PushgateInstance(environment: ["PUSHGATE_DEVICE_RETENTION_DAYS": "1"])
        defer { pushgate.stop() }
        try XCTSkipIf(pushgate.postgreSQLURL != nil, "ages a device in the SQLite file by hand")
        try pushgate.start()
        for (selector, token) in [("0000000000000000000000000000000000000001:00000001", "1111111111111111111111111111111111111111111111111111111111111111"), ("0000000000000000000000000000000000000002:00000002", "2222222222222222222222222222222222222222222222222222222222222222")] {
            let reported = try pushgate.client.get(
                "/token/?selector=\(selector)&token_calls=\(token)&appid_calls=com.example.app")
            XCTAssertEqual(reported.status, 200, reported.text)
        }
        XCTAssertEqual(try pushgate.storedDevices().count, 2)
        // The first account's device was last seen three days ago.
        let aged = try pushgate.run(
            "/usr/bin/env",
            ["python3", "-c",
             "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                + "c.execute(\"UPDATE devices SET updated_at = updated_at - 3 * 86400, created_at = created_at - 3 * 86400 WHERE reported_token = '1111111111111111111111111111111111111111111111111111111111111111'\"); c.commit()",
             pushgate.database])
        XCTAssertEqual(aged.status, 0, aged.stderr)

        let deadline = Date().addingTimeInterval(240)
        while try pushgate.storedDevices().count == 2, Date() < deadline {
            sleep(2)
        }
        let left = try pushgate.storedDevices()
        XCTAssertEqual(left.compactMap { $0["reported_token"] as? String }, ["2222222222222222222222222222222222222222222222222222222222222222"], "\(left)")
        try pushgate.waitForServeLog(containing: "housekeeping removed 1 devices past retention")
        let outbox = try pushgate.cli(["outbox"])
        XCTAssertTrue(outbox.stdout.contains("housekeeping: last run"), outbox.stdout + outbox.stderr)
    }
}
