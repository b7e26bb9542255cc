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
    // A step of a fan-out (InterestFanOut) is a range of one interest's subscriptions, in
    // client id order: the interest index (interest, client_id) read from the cursor on.
    // Its end is the client id `limit` subscriptions on, read from the index alone; NULL when
    // fewer are left, and the step takes the rest of the interest.
    private static let stepEndSQL = """
        SELECT client_id FROM beams_interests WHERE interest = ?1 AND client_id > ?2
        ORDER BY client_id LIMIT 1 OFFSET ?3
        """
    // The range's clients of the publish's apps, each device once over the whole fan-out,
    // whatever was delivered meanwhile: a device is queued for its first subscription in the
    // fan-out's order (interests as the publish named them, then client ids), so a client is
    // skipped when it subscribed an earlier interest of the publish (?7), and when another
    // client on its device comes first (an earlier interest, or this one with a smaller id).
    // Both are probes of primary keys and of beams_clients_device; a device's clients are
    // all of its app. Selected and queued in one statement: handing each id to Swift and
    // back was a large share of a publish. Every selected device exists: the clients'
    // foreign key holds within the transaction.
    //
    // Two texts, bounded and to the end of the interest: with `(?5 IS NULL OR …)` SQLite no
    // longer bounded the index range by ?5, and every step read the interest to its end, so
    // that a large fan-out's steps grew slower as they went.
    private static let enqueueStepSQL = enqueueStep(range: "i.client_id > ?4 AND i.client_id <= ?5")
    private static let enqueueLastStepSQL = enqueueStep(range: "i.client_id > ?4 AND ?5 IS NULL")

    // PostgreSQL runs the same two statements inside a function that pins their plan to index
    // probes from the step's range (migrations 0015, 0017): planned on their own, they started
    // from every client of the instance on every step.
    private static let enqueueStepFunctionSQL = """
        SELECT id FROM pushgate_enqueue_fanout_step(
            ?1, ?2, ?3, ?4, ?5, CAST(?6 AS jsonb), CAST(?7 AS jsonb), CAST(?8 AS bigint), CAST(?9 AS text)) AS s(id)
        """

    // ?8 and ?9: the lease's end and the node when the rows are claimed as they are queued
    // (an attempt counted and due at the lease's end, as a claim leaves them), NULL for rows
    // due at once for anyone to claim.
    private static func enqueueStep(range: String) -> String {
        """
        INSERT INTO outbox (payload_id, device_id, attempts, next_attempt_at, claimed_until, claimed_by, created_at)
        SELECT ?1, c.device_id, CASE WHEN ?9 IS NULL THEN 0 ELSE 1 END, coalesce(?8, ?2), ?8, ?9, ?2
        FROM beams_interests AS i JOIN beams_clients AS c ON c.id = i.client_id
        WHERE i.interest = ?3 AND \(range)
            AND c.app_id IN (SELECT value FROM json_each(?6))
            AND NOT EXISTS (
                SELECT 1 FROM beams_interests AS e
                WHERE e.client_id = c.id AND e.interest IN (SELECT value FROM json_each(?7)))
            AND NOT EXISTS (
                SELECT 1 FROM beams_clients AS o JOIN beams_interests AS s ON s.client_id = o.id
                WHERE o.device_id = c.device_id AND o.id <> c.id
                    AND ((s.interest = ?3 AND o.id < c.id) OR s.interest IN (SELECT value FROM json_each(?7))))
        RETURNING id
        """
    }

    /// Subscribes the client to `interest` unless it has `limit` interests already; true when
    /// it is subscribed now (newly, or from before), false when the limit refused it.
    static func subscribe(clientID: String, interest: String, limit: Int, in database: some SQLConnection) throws
        -> Bool
    {
        try database.run(lockClientSQL, binding: clientID)
        if try database.run(subscribeSQL, binding: clientID, interest, Int64(limit)) > 0 { return true }
        // Nothing inserted: already subscribed (fine, idempotent), or at the limit.
        return try database.firstRow(isSubscribedSQL, binding: clientID, interest) { _ in true } ?? false
    }

    static func unsubscribe(clientID: String, interest: String, in database: some SQLConnection) throws {
        try database.run(unsubscribeSQL, binding: clientID, interest)
    }

    /// The last client id of the next `limit` subscriptions to `interest` after client
    /// `after`; nil when fewer are left.
    static func stepEnd(interest: String, after: String, limit: Int, in database: some SQLConnection) throws
        -> String?
    {
        try database.firstRow(stepEndSQL, binding: interest, after, Int64(max(limit, 1) - 1)) { row in row.string(0) }
    }

    /// Queues payload `payloadID` for each device of the apps (a JSON array of app ids) whose
    /// client subscribed `interest` with a client id after `after` and up to `through` (nil:
    /// to the end), unless the device comes earlier in the fan-out: through
    /// `earlierInterests` (a JSON array), or through a client with a smaller id. The rows are
    /// due at `now` (ms), or, with `claim`, leased to its node until its end as `claimDue`
    /// leaves a row. Returns the ids of the rows it queued.
    static func enqueueStep<Connection: SQLConnection>(
        payloadID: Int64, interest: String, after: String, through: String?, appIDsJSON: String,
        earlierInterests: String, now: Int64, claim: OutboxLease?, in database: Connection
    ) throws -> [Int64] {
        let sql =
            Connection.engine == .postgresql
            ? enqueueStepFunctionSQL : through == nil ? enqueueLastStepSQL : enqueueStepSQL
        return try database.rows(
            sql, binding: payloadID, now, interest, after, through, appIDsJSON, earlierInterests, claim?.until,
            claim?.node
        ) { row in row.int64(0) }
    }
}
