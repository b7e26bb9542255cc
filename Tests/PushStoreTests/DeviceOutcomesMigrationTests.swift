import Foundation
import XCTest

@testable import PushStore

/// 0016 moves each device's last outcome out of `devices` into `device_outcomes`, on both
/// engines: every outcome comes through with its time, and devices without one get no row.
final class DeviceOutcomesMigrationTests: StoreTestCase {
    /// `bytes` spells a token in the engine's own literal of bytes.
    private static func before(_ bytes: (String) -> String) -> String {
        """
        INSERT INTO devices (id, app_id, token, reported_token, platform, created_at, updated_at,
            last_outcome, last_outcome_at)
        VALUES
            (7, 'com.example.phone', \(bytes("616263")), 'abc', 'apns', 2, 3, 'delivered', 40),
            (8, 'com.example.phone', \(bytes("646566")), 'def', 'apns', 2, 5, 'given up: BadTopic', NULL),
            (9, 'com.example.phone', \(bytes("676869")), 'ghi', 'apns', 2, 6, NULL, NULL);
        """
    }

    func testEachLastOutcomeMovesToItsOwnTable() throws {
        let (applied, database) = try databaseMigrated(past: 15) { engine in
            Self.before { engine == .postgresql ? "'\\x\($0)'::bytea" : "X'\($0)'" }
        }
        XCTAssertEqual(applied.first, "0016_device_outcomes.sql")

        let movedSQL = "SELECT device_id, outcome, at FROM device_outcomes ORDER BY device_id"
        let moved = try database.withStatement(movedSQL) { row in
            var rows: [String] = []
            while try row.step() { rows.append("\(row.int64(0)) \(row.string(1) ?? "-") \(row.int64(2))") }
            return rows
        }
        // An outcome recorded without its time (none were, but the column allowed it) takes
        // the device's last report as the nearest time known.
        XCTAssertEqual(moved, ["7 delivered 40", "8 given up: BadTopic 5"])
        XCTAssertEqual(try count("devices", in: database), 3)
    }
}
