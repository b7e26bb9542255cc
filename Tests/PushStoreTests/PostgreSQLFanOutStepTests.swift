import Foundation
import PushCore
import XCTest

@testable import PushStore

/// `pushgate_enqueue_fanout_step` (migration 0015): a step of a fan-out reads its own range of
/// the interest's subscriptions through the indexes, however many clients the instance has
/// and whatever the tables looked like when the connection first planned it.
final class PostgreSQLFanOutStepTests: StoreTestCase {
    /// Clients `first...last`, each on a device of its own, subscribed to "everyone"; their ids
    /// sort in number order ("client-00001").
    private func subscribe(_ first: Int, through last: Int, in database: PostgreSQLConnection) throws {
        try database.execute(
            """
            INSERT INTO devices (id, app_id, token, reported_token, platform, created_at, updated_at)
            SELECT n, '\(Fixture.apnsAppID.rawValue)', decode(md5(n::text), 'hex'), md5(n::text), 'apns', 1, 1
            FROM generate_series(\(first), \(last)) AS n;
            INSERT INTO beams_clients (id, app_id, device_id, created_at, updated_at)
            SELECT 'client-' || lpad(n::text, 5, '0'), '\(Fixture.apnsAppID.rawValue)', n, 1, 1
            FROM generate_series(\(first), \(last)) AS n;
            INSERT INTO beams_interests (client_id, interest)
            SELECT 'client-' || lpad(n::text, 5, '0'), 'everyone' FROM generate_series(\(first), \(last)) AS n;
            """)
    }

    private func step(
        after: String, through: String?, claim: OutboxLease? = nil, in database: PostgreSQLConnection
    ) throws -> Int {
        try BeamsInterestTable.enqueueStep(
            payloadID: 1, interest: "everyone", after: after, through: through,
            appIDsJSON: "[\"\(Fixture.apnsAppID.rawValue)\"]", earlierInterests: "[]", now: 5, claim: claim,
            in: database
        ).count
    }

    /// The backend's scans of this transaction, and of earlier ones not yet sent to the
    /// statistics: what a step adds is the difference.
    private func scans(in database: PostgreSQLConnection) throws -> [String: (sequential: Int64, index: Int64)] {
        try database.withStatement(
            """
            SELECT relname, seq_scan, coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables
            WHERE schemaname = current_schema() AND relname IN ('devices', 'beams_clients', 'beams_interests')
            """
        ) { row in
            var scans: [String: (sequential: Int64, index: Int64)] = [:]
            while try row.step() { scans[row.string(0) ?? ""] = (row.int64(1), row.int64(2)) }
            return scans
        }
    }

    func testAStepProbesItsRangeAfterTheTablesGrow() throws {
        let database = try openPostgreSQLDatabaseWithAPNsApp()
        try database.execute(
            """
            INSERT INTO outbox_payloads (id, source, apns_payload, created_at) VALUES (1, 'beams:publish', '\\x7b7d', 1);
            ANALYZE devices; ANALYZE beams_clients; ANALYZE beams_interests;
            """)
        // Steps while the instance has a handful of clients, past the five custom plans after
        // which a connection may keep a generic one; then it grows sixfold a hundred times.
        try subscribe(1, through: 10, in: database)
        for _ in 0..<8 {
            XCTAssertEqual(try step(after: "", through: "client-00004", in: database), 4)
            try database.execute("DELETE FROM outbox")
        }
        try subscribe(11, through: 6_000, in: database)
        try database.execute("ANALYZE devices; ANALYZE beams_clients; ANALYZE beams_interests")

        try database.execute("BEGIN")
        let before = try scans(in: database)
        XCTAssertEqual(try step(after: "client-02000", through: "client-02100", in: database), 100)
        XCTAssertEqual(
            try step(after: "client-05950", through: nil, claim: OutboxLease(until: 90, node: "n1"), in: database), 50,
            "the last step, to the end, claimed as the worker takes it")
        let after = try scans(in: database)
        try database.execute("COMMIT")
        for table in ["devices", "beams_clients", "beams_interests"] {
            let (before, after) = (before[table] ?? (0, 0), after[table] ?? (0, 0))
            XCTAssertEqual(after.sequential - before.sequential, 0, "sequential scans of \(table)")
        }
        XCTAssertGreaterThan(
            (after["beams_clients"]?.index ?? 0) - (before["beams_clients"]?.index ?? 0), 0,
            "the clients are reached by their key")
        let queued = try database.withStatement("SELECT min(device_id), max(device_id), count(*) FROM outbox") { row in
            try row.step() ? [row.int64(0), row.int64(1), row.int64(2)] : []
        }
        XCTAssertEqual(queued, [2_001, 6_000, 150], "client-02001 … 02100 and 05951 … 06000")
        let claimed = try database.withStatement(
            """
            SELECT count(*) FROM outbox
            WHERE device_id > 5950 AND claimed_by = 'n1' AND claimed_until = 90 AND next_attempt_at = 90
                AND attempts = 1
            """
        ) { row in try row.step() ? row.int64(0) : 0 }
        XCTAssertEqual(claimed, 50, "the claimed step's rows leased to n1, an attempt counted")
    }
}
