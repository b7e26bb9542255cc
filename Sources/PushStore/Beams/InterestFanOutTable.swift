import Foundation
import PushCore

/// The SQL of `outbox_fanouts`: publishes to interests still being queued, each with its
/// cursor (migration 0013).
enum InterestFanOutTable {
    /// A fan-out's state: who receives it, and how far its queueing got.
    struct Row {
        var payloadID: Int64
        var appIDsJSON: String
        var interests: [String]
        /// The interest being queued (its place in `interests`).
        var interestIndex: Int
        /// The last client id of that interest already queued; "" before the first.
        var afterClient: String
    }

    private static let insertSQL = """
        INSERT INTO outbox_fanouts (payload_id, app_ids, interests, interest_index, after_client, created_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6)
        """
    // PostgreSQL: the step's transaction holds the row; another node's worker skips it and
    // takes the next fan-out (or none), rather than waiting to step the same one.
    private static let oldestSQL = EngineSQL(
        sqlite: """
            SELECT payload_id, app_ids, interests, interest_index, after_client FROM outbox_fanouts
            ORDER BY created_at, payload_id LIMIT 1
            """,
        postgresql: """
            SELECT payload_id, app_ids, interests, interest_index, after_client FROM outbox_fanouts
            ORDER BY created_at, payload_id LIMIT 1
            FOR UPDATE SKIP LOCKED
            """)
    private static let advanceSQL = """
        UPDATE outbox_fanouts SET interest_index = ?2, after_client = ?3 WHERE payload_id = ?1
        """
    private static let deleteSQL = "DELETE FROM outbox_fanouts WHERE payload_id = ?1"
    private static let anySQL = "SELECT EXISTS (SELECT 1 FROM outbox_fanouts)"
    private static let countSQL = "SELECT count(*) FROM outbox_fanouts"

    /// Keeps a fan-out that its publish did not queue in full, with its cursor.
    static func insert(_ row: Row, now: Int64, in database: some SQLConnection) throws {
        let interests = String(decoding: try JSONEncoder().encode(row.interests), as: UTF8.self)
        try database.run(
            insertSQL, binding: row.payloadID, row.appIDsJSON, interests, Int64(row.interestIndex), row.afterClient, now
        )
    }

    /// The oldest fan-out still being queued that no other transaction holds.
    static func oldest(in database: some SQLConnection) throws -> Row? {
        let found = try database.withStatement(oldestSQL) { row -> (Int64, String, String, Int64, String)? in
            guard try row.step() else { return nil }
            return (row.int64(0), row.string(1) ?? "", row.string(2) ?? "", row.int64(3), row.string(4) ?? "")
        }
        guard let (payloadID, appIDs, interestsJSON, index, after) = found else { return nil }
        guard let interests = try? JSONDecoder().decode([String].self, from: Data(interestsJSON.utf8)) else {
            throw StoredValueError(
                table: "outbox_fanouts", column: "interests", value: interestsJSON, rowKey: "\(payloadID)")
        }
        return Row(
            payloadID: payloadID, appIDsJSON: appIDs, interests: interests, interestIndex: Int(index),
            afterClient: after)
    }

    /// Stores how far `row` got.
    static func advance(_ row: Row, in database: some SQLConnection) throws {
        try database.run(advanceSQL, binding: row.payloadID, Int64(row.interestIndex), row.afterClient)
    }

    /// The fan-out is queued in full.
    static func delete(payloadID: Int64, in database: some SQLConnection) throws {
        try database.run(deleteSQL, binding: payloadID)
    }

    /// Whether any fan-out is still being queued, held by another node or not.
    static func any(in database: some SQLConnection) throws -> Bool {
        try database.withStatement(anySQL) { row in try row.step() && row.int64(0) != 0 }
    }

    static func count(in database: some SQLConnection) throws -> Int {
        try database.withStatement(countSQL) { row in try row.step() ? Int(row.int64(0)) : 0 }
    }
}
