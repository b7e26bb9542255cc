import CSQLite
import Foundation
import XCTest

@testable import PushStore

/// 0018 rewrites SQLite's CHECKs of `devices` and `delivery_log` without IN lists, rebuilding
/// both tables: every row and every reference must come through, the checks must refuse what
/// they refused before, and no table written per push or per report may make SQLite build a
/// temporary index of a list for each row it inserts.
final class ChecksWithoutInListsMigrationTests: StoreTestCase {
    /// The tables written once per push (the outbox's rows, log and outcomes) or per report
    /// (devices and what links them to an account, client or user).
    private static let tablesWrittenPerRow = [
        "devices", "delivery_log", "device_outcomes", "outbox", "acrobits_accounts", "beams_clients",
        "beams_interests", "user_devices", "bridge_subscriptions",
    ]

    func testNoTableWrittenPerRowBuildsAListForEachInsert() throws {
        try requireSQLite()
        let database = try openSQLiteDatabase()
        try Migrator.migrate(database: database, migrations: try Migration.builtIn(for: .sqlite))
        for table in Self.tablesWrittenPerRow {
            let columns = try database.withStatement("SELECT name FROM pragma_table_info(?1)") { row in
                try row.bind(table, at: 1)
                var names: [String] = []
                while try row.step() { names.append(row.string(0) ?? "") }
                return names
            }
            XCTAssertFalse(columns.isEmpty, "\(table) exists")
            let placeholders = columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")
            let insert = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES (\(placeholders))"
            // The program of the insert, not a run of it: OpenEphemeral is the temporary index
            // an IN list of three values or more is built into, once per execution.
            let opcodes = try database.withStatement("EXPLAIN \(insert)") { row in
                var opcodes: [String] = []
                while try row.step() { opcodes.append(row.string(1) ?? "") }
                return opcodes
            }
            XCTAssertFalse(opcodes.isEmpty)
            XCTAssertFalse(opcodes.contains("OpenEphemeral"), "an insert into \(table) builds a temporary index")
        }
    }

    func testTheRebuildKeepsEveryRowAndEveryReferenceToIt() throws {
        try requireSQLite("0018 rebuilds SQLite's tables; PostgreSQL's constraints stay as they are")
        let database = try openSQLiteDatabase()
        let all = try Migration.builtIn(for: .sqlite)
        try Migrator.migrate(database: database, migrations: all.filter { $0.version <= 17 })
        try database.execute(
            """
            INSERT INTO apps (id, platform, fcm_service_account_json, fcm_project_id, created_at, updated_at)
                VALUES ('com.example.fcm', 'fcm', '{}', 'p', 1, 1);
            INSERT INTO devices (id, app_id, token, reported_token, platform, sandbox, apns_topic, created_at,
                updated_at)
                VALUES (7, 'com.example.fcm', X'616263', 'abc', 'fcm', 1, 'topic', 2, 3),
                    (8, 'com.example.fcm', X'646566', 'def', NULL, NULL, NULL, 4, 5);
            INSERT INTO device_outcomes (device_id, outcome, at) VALUES (7, 'delivered', 6);
            INSERT INTO beams_clients (id, app_id, device_id, created_at, updated_at)
                VALUES ('client-1', 'com.example.fcm', 7, 4, 5);
            INSERT INTO beams_interests (client_id, interest) VALUES ('client-1', 'donuts');
            INSERT INTO outbox_payloads (id, source, fcm_message, created_at) VALUES (9, 'beams:publish', '{}', 7);
            INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at) VALUES (9, 7, 8, 8);
            INSERT INTO delivery_log (id, at, app_id, token, outcome, detail, source)
                VALUES (41, 10, 'com.example.fcm', 'abc…', 'delivered', 'projects/p/messages/1', 'beams:publish'),
                    (42, 11, 'com.example.fcm', 'def…', 'kept', NULL, NULL);
            """)

        XCTAssertEqual(try Migrator.migrate(database: database, migrations: all).first, "0018_checks_without_in_lists.sql")

        /// Each row's columns as text, "-" for NULL, separated by spaces.
        func rows(_ sql: String) throws -> [String] {
            try database.withStatement(sql) { row in
                var rows: [String] = []
                while try row.step() {
                    let columns = (0..<sqlite3_column_count(row.handle)).map { row.string($0) ?? "-" }
                    rows.append(columns.joined(separator: " "))
                }
                return rows
            }
        }
        XCTAssertEqual(
            try rows(
                """
                SELECT id, app_id, hex(token), reported_token, platform, sandbox, apns_topic, created_at, updated_at
                FROM devices ORDER BY id
                """),
            ["7 com.example.fcm 616263 abc fcm 1 topic 2 3", "8 com.example.fcm 646566 def - - - 4 5"])
        XCTAssertEqual(
            try rows("SELECT id, at, app_id, token, outcome, detail, source FROM delivery_log ORDER BY id"),
            [
                "41 10 com.example.fcm abc… delivered projects/p/messages/1 beams:publish",
                "42 11 com.example.fcm def… kept - -",
            ])
        XCTAssertEqual(
            try rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'devices' ORDER BY name"),
            ["devices_unregistered", "devices_updated", "sqlite_autoindex_devices_1"])
        XCTAssertEqual(try rows("SELECT count(*) FROM pragma_foreign_key_check"), ["0"])
        XCTAssertEqual(try rows("PRAGMA foreign_keys"), ["1"], "foreign keys are on again after migrating")

        // The references to the rebuilt devices still act: deleting one cascades as before.
        try database.execute("DELETE FROM devices WHERE id = 7")
        XCTAssertEqual(try rows("SELECT count(*) FROM beams_clients"), ["0"])
        XCTAssertEqual(try rows("SELECT count(*) FROM beams_interests"), ["0"])
        XCTAssertEqual(try rows("SELECT count(*) FROM outbox"), ["0"])
        XCTAssertEqual(try rows("SELECT count(*) FROM device_outcomes"), ["0"])
    }

    /// On both engines: the checks written either way refuse a platform or an outcome outside
    /// their lists and take every value in them.
    func testTheChecksStillRefuseWhatTheyRefused() throws {
        _ = try makeStore()  // migrated
        let database = try openDatabase()
        let token = sql(sqlite: "X'616263'", postgresql: "'\\x616263'::bytea")
        for platform in ["apns", "fcm", "web"] {
            try database.execute(
                """
                INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
                VALUES ('com.example.\(platform)', \(token), 'abc', '\(platform)', 1, 1)
                """)
        }
        XCTAssertThrowsError(
            try database.execute(
                """
                INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
                VALUES ('com.example.other', \(token), 'abc', 'sms', 1, 1)
                """)
        ) { XCTAssertTrue(isConstraintViolation($0), "\($0)") }
        for outcome in ["delivered", "retry", "dead", "pruned", "kept"] {
            try database.execute(
                """
                INSERT INTO delivery_log (at, app_id, token, outcome, detail, source)
                VALUES (1, 'com.example.apns', 'abc…', '\(outcome)', NULL, 'pnm2')
                """)
        }
        XCTAssertThrowsError(
            try database.execute(
                """
                INSERT INTO delivery_log (at, app_id, token, outcome, detail, source)
                VALUES (1, 'com.example.apns', 'abc…', 'lost', NULL, 'pnm2')
                """)
        ) { XCTAssertTrue(isConstraintViolation($0), "\($0)") }
        XCTAssertEqual(try count("devices", in: database), 3)
        XCTAssertEqual(try count("delivery_log", in: database), 5)
    }
}
