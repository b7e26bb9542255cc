import Foundation
import XCTest

@testable import PushStore

/// 0011 rebuilds apps, devices, beams_instances and outbox_payloads in SQLite (a CHECK cannot
/// change in place): every row must come through, and nothing that references them may be
/// cascaded away by the drops.
final class WebPlatformMigrationTests: StoreTestCase {

    // SQLite only: PostgreSQL changes the constraints in place.
    override func setUpWithError() throws {
        try super.setUpWithError()
        try requireSQLite()
    }

    func testTheRebuildKeepsEveryRowAndEveryReferenceToIt() throws {
        let database = try openSQLiteDatabase()
        let all = try Migration.builtIn(for: .sqlite)
        try Migrator.migrate(database: database, migrations: all.filter { $0.version <= 10 })
        try database.execute(
            """
            INSERT INTO apps (id, platform, fcm_service_account_json, fcm_project_id, created_at, updated_at)
                VALUES ('com.example.fcm', 'fcm', '{}', 'p', 1, 1);
            INSERT INTO beams_instances (app_key, platform, app_id) VALUES ('instance-1', 'fcm', 'com.example.fcm');
            INSERT INTO devices (id, app_id, token, reported_token, platform, created_at, updated_at)
                VALUES (7, 'com.example.fcm', X'616263', 'abc', 'fcm', 2, 3);
            INSERT INTO beams_clients (id, app_id, device_id, created_at, updated_at)
                VALUES ('client-1', 'com.example.fcm', 7, 4, 5);
            INSERT INTO beams_interests (client_id, interest) VALUES ('client-1', 'donuts');
            INSERT INTO app_checks (app_id, checked_at, ok, detail) VALUES ('com.example.fcm', 6, 1, 'fine');
            INSERT INTO outbox_payloads (id, source, fcm_message, created_at) VALUES (9, 'beams:publish', '{"data":{}}', 7);
            INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at) VALUES (9, 7, 8, 8);
            """)

        let applied = try Migrator.migrate(database: database, migrations: all)
        XCTAssertEqual(applied.first, "0011_web_platform.sql")

        func count(_ sql: String) throws -> Int64 {
            try database.withStatement(sql) { row in
                XCTAssertTrue(try row.step())
                return row.int64(0)
            }
        }
        XCTAssertEqual(try count("SELECT count(*) FROM apps WHERE id = 'com.example.fcm' AND created_at = 1"), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM beams_instances WHERE app_key = 'instance-1'"), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM devices WHERE id = 7 AND token = X'616263' AND updated_at = 3"), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM beams_clients WHERE device_id = 7"), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM beams_interests"), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM app_checks"), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM outbox WHERE payload_id = 9 AND device_id = 7"), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM outbox_payloads WHERE id = 9"), 1)
        XCTAssertEqual(try count("SELECT count(*) FROM pragma_foreign_key_check"), 0)
        XCTAssertEqual(try count("PRAGMA foreign_keys"), 1, "foreign keys are on again after migrating")

        // The references still act: removing the app cascades to its Beams client as before.
        try database.execute("DELETE FROM apps WHERE id = 'com.example.fcm'")
        XCTAssertEqual(try count("SELECT count(*) FROM beams_clients"), 0)
        XCTAssertEqual(try count("SELECT count(*) FROM beams_interests"), 0)
        // And the widened checks take a web app and a web device.
        try database.execute(
            """
            INSERT INTO apps (id, platform, web_vapid_private_key_pem, web_vapid_subject, created_at, updated_at)
                VALUES ('web.example', 'web', 'PEM', 'mailto:ops@example.com', 1, 1);
            INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
                VALUES ('web.example', X'7b7d', '{}', 'web', 1, 1);
            """)
        XCTAssertThrowsError(
            try database.execute(
                "INSERT INTO apps (id, platform, web_vapid_subject, created_at, updated_at) VALUES ('half', 'web', 'x', 1, 1)"))
    }

    func testAMigrationThatLeavesADanglingReferenceIsRolledBack() throws {
        let database = try openSQLiteDatabase()
        let broken = try XCTUnwrap(Migration(
            fileName: "0001_dangling.sql",
            sql: """
                CREATE TABLE parent (id INTEGER PRIMARY KEY);
                CREATE TABLE child (parent_id INTEGER REFERENCES parent (id));
                INSERT INTO child (parent_id) VALUES (42);
                """))
        XCTAssertThrowsError(try Migrator.migrate(database: database, migrations: [broken]))
        let tables = try database.withStatement("SELECT count(*) FROM sqlite_schema WHERE name = 'child'") { row in
            _ = try row.step()
            return row.int64(0)
        }
        XCTAssertEqual(tables, 0)
    }
}
