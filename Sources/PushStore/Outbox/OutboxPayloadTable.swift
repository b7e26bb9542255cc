import PushCore

/// The SQL of `outbox_payloads`: one row per publish, the APNs and Web Push halves as columns
/// and the FCM half as JSON text, shared by all of the publish's outbox rows.
enum OutboxPayloadTable {
    /// What a claim needs of a payload, read once per payload per claim.
    struct Payload {
        var source: String
        var apns: APNsMessage?
        var fcm: FCMMessage?
        var web: WebPushMessage?
    }

    private static let insertSQL = """
        INSERT INTO outbox_payloads (
            source, apns_payload, apns_push_type, apns_priority, apns_topic, apns_expiration,
            apns_collapse_id, apns_id, fcm_message, web_payload, web_ttl, web_urgency, web_topic, created_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
        RETURNING id
        """
    private static let selectSQL = """
        SELECT source, apns_payload, apns_push_type, apns_priority, apns_topic, apns_expiration,
            apns_collapse_id, apns_id, fcm_message, web_payload, web_ttl, web_urgency, web_topic
        FROM outbox_payloads
        WHERE id = ?
        """
    private static let deleteSQL = "DELETE FROM outbox_payloads WHERE id = ?"
    // The outbox_payload index answers NOT EXISTS with one probe per payload. A payload whose
    // fan-out is still being queued stays, rows or not: its next steps need it.
    private static let deleteIfUnusedSQL = """
        DELETE FROM outbox_payloads
        WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM outbox WHERE payload_id = ?1)
            AND NOT EXISTS (SELECT 1 FROM outbox_fanouts WHERE payload_id = ?1)
        """
    private static let deleteAllUnusedSQL = """
        DELETE FROM outbox_payloads
        WHERE NOT EXISTS (SELECT 1 FROM outbox WHERE outbox.payload_id = outbox_payloads.id)
            AND NOT EXISTS (SELECT 1 FROM outbox_fanouts WHERE outbox_fanouts.payload_id = outbox_payloads.id)
        """

    /// Stores `message`; returns its id.
    static func insert(_ message: OutboxMessage, now: Int64, in database: some SQLConnection) throws -> Int64 {
        let apns = message.apns
        let web = message.web
        // Sorted keys: the stored text is stable, so equal publishes read back equal.
        let fcm = message.fcm.map { String(decoding: JSONValue.object($0.fields).encoded(), as: UTF8.self) }
        let id = try database.firstRow(
            insertSQL, binding: message.source, apns?.payload, apns?.pushType?.rawValue, apns?.priority.map(Int64.init),
            apns?.topic, apns?.expiration.map(Int64.init), apns?.collapseID, apns?.id, fcm, web?.payload,
            web.map { Int64($0.ttl) }, web?.urgency?.rawValue, web?.topic, now
        ) { row in row.int64(0) }
        guard let id else { throw DatabaseError.unexpected("the payload insert returned no id", sql: insertSQL) }
        return id
    }

    static func payload(id: Int64, in database: some SQLConnection) throws -> Payload? {
        try database.withStatement(selectSQL) { row in
            try row.bind(id, at: 1)
            guard try row.step() else { return nil }
            func invalid(_ column: String, _ value: String?) -> StoredValueError {
                StoredValueError(table: "outbox_payloads", column: column, value: value ?? "NULL", rowKey: "\(id)")
            }
            func parsed<Value: RawRepresentable<String>>(_ column: Int32, _ name: String) throws -> Value? {
                guard let raw = row.string(column) else { return nil }
                guard let value = Value(rawValue: raw) else { throw invalid(name, raw) }
                return value
            }
            var apns: APNsMessage?
            if let body = row.blob(1) {
                apns = APNsMessage(
                    payload: body, pushType: try parsed(2, "apns_push_type"),
                    priority: row.optionalInt64(3).map(Int.init), topic: row.string(4),
                    expiration: row.optionalInt64(5).map(Int.init), collapseID: row.string(6), id: row.string(7))
            }
            var fcm: FCMMessage?
            if let text = row.string(8) {
                guard let fields = (try? JSONValue.parse(Array(text.utf8), maximumDepth: .max))?.objectValue else {
                    // The value may hold message text: name its size, not its content.
                    throw invalid("fcm_message", "\(text.utf8.count) bytes that are not a JSON object")
                }
                fcm = FCMMessage(fields: fields)
            }
            var web: WebPushMessage?
            if let body = row.blob(9) {
                web = WebPushMessage(
                    payload: body, ttl: Int(row.optionalInt64(10) ?? 0), urgency: try parsed(11, "web_urgency"),
                    topic: row.string(12))
            }
            return Payload(source: row.string(0) ?? "", apns: apns, fcm: fcm, web: web)
        }
    }

    static func delete(id: Int64, in database: some SQLConnection) throws {
        try database.run(deleteSQL, binding: id)
    }

    /// Deletes those of `ids` no outbox row uses any more.
    static func deleteIfUnused(_ ids: some Sequence<Int64>, in database: some SQLConnection) throws {
        for id in Set(ids) {
            try database.run(deleteIfUnusedSQL, binding: id)
        }
    }

    /// Deletes every payload no outbox row uses (their devices were deleted); returns how many.
    static func deleteAllUnused(in database: some SQLConnection) throws -> Int {
        try database.run(deleteAllUnusedSQL)
        return database.changes
    }
}
