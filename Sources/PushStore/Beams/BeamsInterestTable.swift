import PushCore

/// The SQL of `beams_interests`: which client subscribed which interest.
enum BeamsInterestTable {
    // Taking the client row's lock first makes a client's subscribes one at a time, so that two
    // at once cannot both see room for one more (PostgreSQL); SQLite has one writer anyway.
    private static let lockClientSQL = "UPDATE beams_clients SET updated_at = updated_at WHERE id = ?1"
    // The count is a range of the primary key, at most the limit's rows. (The WHERE also
    // settles SQLite's reading of `INSERT … SELECT … ON CONFLICT`.)
    private static let subscribeSQL = """
        INSERT INTO beams_interests (client_id, interest)
        SELECT ?1, ?2 WHERE (SELECT count(*) FROM beams_interests WHERE client_id = ?1) < ?3
        ON CONFLICT DO NOTHING
        """
    private static let isSubscribedSQL = "SELECT 1 FROM beams_interests WHERE client_id = ?1 AND interest = ?2"
    private static let unsubscribeSQL = "DELETE FROM beams_interests WHERE client_id = ?1 AND interest = ?2"
    // The interests come as one bound JSON array (json_each), so that one cached statement
    // serves any number of them. The outer loop is the interest index, the client a
    // primary-key probe; DISTINCT because a device subscribed through several interests (or
    // several clients) receives a publish once. Selected and queued in one statement (the
    // columns of OutboxTable's insert): for 100,000 subscribers, a third of the publish went
    // to handing each id to Swift and back. Every selected device exists: the clients'
    // foreign key holds within the transaction.
    private static let enqueueSubscribedDevicesSQL = EngineSQL(
        sqlite: """
            INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at)
            SELECT DISTINCT ?3, c.device_id, ?4, ?4
            FROM beams_interests AS i JOIN beams_clients AS c ON c.id = i.client_id
            WHERE i.interest IN (SELECT value FROM json_each(?2))
                AND c.app_id IN (SELECT value FROM json_each(?1))
            """,
        postgresql: """
            INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at)
            SELECT DISTINCT ?3, c.device_id, ?4, ?4
            FROM beams_interests AS i JOIN beams_clients AS c ON c.id = i.client_id
            WHERE i.interest IN (SELECT jsonb_array_elements_text(CAST(?2 AS jsonb)))
                AND c.app_id IN (SELECT jsonb_array_elements_text(CAST(?1 AS jsonb)))
            """)

    /// Subscribes the client to `interest` unless it has `limit` interests already; true when
    /// it is subscribed now (newly, or from before), false when the limit refused it.
    static func subscribe(clientID: String, interest: String, limit: Int, in database: some SQLConnection) throws
        -> Bool
    {
        try database.withStatement(lockClientSQL) {
            try $0.bind(clientID, at: 1)
            try $0.run()
        }
        try database.withStatement(subscribeSQL) {
            try $0.bind(clientID, at: 1)
            try $0.bind(interest, at: 2)
            try $0.bind(Int64(limit), at: 3)
            try $0.run()
        }
        if database.changes > 0 { return true }
        // Nothing inserted: already subscribed (fine, idempotent), or at the limit.
        return try database.withStatement(isSubscribedSQL) { row in
            try row.bind(clientID, at: 1)
            try row.bind(interest, at: 2)
            return try row.step()
        }
    }

    static func unsubscribe(clientID: String, interest: String, in database: some SQLConnection) throws {
        try database.withStatement(unsubscribeSQL) {
            try $0.bind(clientID, at: 1)
            try $0.bind(interest, at: 2)
            try $0.run()
        }
    }

    /// Queues payload `payloadID` for the devices of the clients of the apps (a JSON array
    /// of app ids) subscribed to any of the interests (a JSON array of strings), each once,
    /// due at `now` (ms); returns how many rows it queued.
    static func enqueueSubscribedDevices(
        appIDsJSON: String, interestsJSON: String, payloadID: Int64, now: Int64, in database: some SQLConnection
    ) throws -> Int {
        try database.withStatement(enqueueSubscribedDevicesSQL) {
            try $0.bind(appIDsJSON, at: 1)
            try $0.bind(interestsJSON, at: 2)
            try $0.bind(payloadID, at: 3)
            try $0.bind(now, at: 4)
            try $0.run()
        }
        return database.changes
    }
}
