import PushCore

/// The SQL of `outbox`: one row per (payload, device) to deliver, or given up on.
enum OutboxTable {
    /// A due row as a claim reads it, with what the push needs of its device.
    struct DueRow {
        var id: Int64
        var payloadID: Int64
        var attempts: Int64
        var deviceID: Int64
        var appID: AppID
        var token: DeviceToken
        var sandbox: Bool?
        var apnsTopic: String?
    }

    // SQLite: plain VALUES, a statement per device: a device deleted since the publisher
    // looked it up fails its foreign key, and only that statement is undone. (An INSERT …
    // SELECT FROM devices would look every device up twice, for the SELECT and for the
    // foreign key.) PostgreSQL: one statement for the whole list, a round trip instead of one
    // per device; its SELECT skips devices that are gone (a failed statement would abort the
    // whole transaction there), in the list's order, so that rows are claimed in the order
    // the publisher gave.
    private static let insertSQL = EngineSQL(
        sqlite: "INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at) VALUES (?1, ?2, ?3, ?3)",
        postgresql: """
            INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at)
            SELECT ?1, d.id, ?3, ?3 FROM unnest(?2) WITH ORDINALITY AS v(id, n) JOIN devices AS d ON d.id = v.id
            WHERE d.id = ANY(?2)
            ORDER BY v.n
            """)
    /// `SQLITE_CONSTRAINT_FOREIGNKEY` (a macro Swift cannot import).
    private static let foreignKeyViolation: Int32 = 787
    // The outer loop is the outbox_due index (a range scan in due order), the device a
    // primary-key probe per row.
    private static let dueSQL = """
        SELECT o.id, o.payload_id, o.attempts, o.device_id, d.app_id, d.token, d.sandbox, d.apns_topic
        FROM outbox AS o JOIN devices AS d ON d.id = o.device_id
        WHERE o.state = 'pending' AND o.next_attempt_at <= ?1
        ORDER BY o.next_attempt_at
        LIMIT ?2
        """
    // PostgreSQL claims in one statement: the due rows are locked as they are chosen, and
    // rows another node's worker holds locked are skipped rather than waited for, so that
    // workers on several nodes share the outbox without claiming a row twice. `attempts`
    // comes back as it was before this claim, as `due` reads it.
    private static let claimDueSQL = """
        WITH due AS (
            SELECT id, next_attempt_at FROM outbox
            WHERE state = 'pending' AND next_attempt_at <= ?1
            ORDER BY next_attempt_at
            LIMIT ?2
            FOR UPDATE SKIP LOCKED),
        claimed AS (
            UPDATE outbox AS o SET attempts = o.attempts + 1, next_attempt_at = ?3, claimed_until = ?3, claimed_by = ?4
            FROM due WHERE o.id = due.id AND o.id = ANY(ARRAY(SELECT id FROM due))
            RETURNING o.id, o.payload_id, o.attempts - 1 AS attempts, o.device_id, due.next_attempt_at AS due_at)
        SELECT c.id, c.payload_id, c.attempts, c.device_id, d.app_id, d.token, d.sandbox, d.apns_topic
        FROM claimed AS c JOIN devices AS d ON d.id = c.device_id
        ORDER BY c.due_at, c.id
        """
    // The rows a fan-out step claimed as it queued them, read as a claim reads its rows:
    // SQLite a probe per row, PostgreSQL the list at once.
    private static let claimedSQL = EngineSQL(
        sqlite: """
            SELECT o.id, o.payload_id, o.attempts - 1, o.device_id, d.app_id, d.token, d.sandbox, d.apns_topic
            FROM outbox AS o JOIN devices AS d ON d.id = o.device_id
            WHERE o.id = ?1
            """,
        postgresql: """
            SELECT o.id, o.payload_id, o.attempts - 1, o.device_id, d.app_id, d.token, d.sandbox, d.apns_topic
            FROM outbox AS o JOIN devices AS d ON d.id = o.device_id
            WHERE o.id = ANY(?1)
            ORDER BY o.id
            """)
    // The lease end doubles as the next due time: a row whose worker dies comes back by
    // itself (see 0002_outbox.sql).
    private static let claimSQL = """
        UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ?2, claimed_until = ?2, claimed_by = ?3
        WHERE id = ?1
        """
    private static let deleteSQL = "DELETE FROM outbox WHERE id = ?"
    // Completing a batch on PostgreSQL is one statement per kind of outcome, not one per row:
    // there every statement is a round trip to the server, and a fan-out completed row by row
    // spent its time waiting for them. RETURNING says which rows were still there. SQLite runs in the
    // process, where a prepared statement per row costs microseconds; there a list of several
    // columns stays row by row, since joining json_each lists by their keys is quadratic.
    // A PostgreSQL statement that joins a list with a table also names the list as `id =
    // ANY(…)`: joined through the unnested list alone, the first plans of each connection
    // (custom plans, before PostgreSQL settles on a generic one) hashed a scan of the whole
    // table for every batch, a cost that grows with the table. The condition reaches the
    // table by its primary key from the first call (docs/performance.md has the measurement).
    private static let deleteManySQL = EngineSQL(
        sqlite: "DELETE FROM outbox WHERE id IN (SELECT value FROM json_each(?1)) RETURNING id",
        postgresql: "DELETE FROM outbox WHERE id = ANY(?1) RETURNING id")
    private static let rescheduleManySQL = EngineSQL(
        sqlite: """
            UPDATE outbox SET next_attempt_at = ?2, claimed_until = NULL, claimed_by = NULL, last_error = ?3
            WHERE id = ?1 AND state = 'pending'
            RETURNING id
            """,
        postgresql: """
            UPDATE outbox AS o SET next_attempt_at = v.at, claimed_until = NULL, claimed_by = NULL, last_error = v.error
            FROM unnest(?1, ?2, ?3) AS v(id, at, error)
            WHERE o.id = v.id AND o.id = ANY(?1) AND o.state = 'pending'
            RETURNING o.id
            """)
    private static let buryManySQL = EngineSQL(
        sqlite: """
            UPDATE outbox SET state = 'dead', claimed_until = NULL, claimed_by = NULL, last_error = ?2
            WHERE id = ?1 AND state = 'pending'
            RETURNING id
            """,
        postgresql: """
            UPDATE outbox AS o SET state = 'dead', claimed_until = NULL, claimed_by = NULL, last_error = v.error
            FROM unnest(?1, ?2) AS v(id, error)
            WHERE o.id = v.id AND o.id = ANY(?1) AND o.state = 'pending'
            RETURNING o.id
            """)
    private static let payloadsOfDeviceSQL = "SELECT DISTINCT payload_id FROM outbox WHERE device_id = ?"
    private static let nextDueSQL = """
        SELECT next_attempt_at FROM outbox WHERE state = 'pending' ORDER BY next_attempt_at LIMIT 1
        """
    private static let releaseClaimsSQL = """
        UPDATE outbox SET next_attempt_at = ?1, claimed_until = NULL, claimed_by = NULL
        WHERE state = 'pending' AND claimed_until IS NOT NULL
        """
    private static let releaseNodeClaimsSQL = """
        UPDATE outbox SET next_attempt_at = ?1, claimed_until = NULL, claimed_by = NULL
        WHERE state = 'pending' AND claimed_until IS NOT NULL AND claimed_by = ?2
        """
    private static let claimsSQL = """
        SELECT claimed_by, count(*), max(claimed_until) FROM outbox
        WHERE state = 'pending' AND claimed_until IS NOT NULL
        GROUP BY claimed_by
        ORDER BY claimed_by
        """
    // Wakes the drainers of every node (OutboxWakeListener). NOTIFY is transactional: it goes
    // out when the publishing transaction commits, never for one that rolls back, and equal
    // notifications of one transaction are sent once. The payload names the schema, so that
    // stores in other schemas of the database (tests) ignore it.
    private static let announceSQL = "SELECT pg_notify('\(OutboxWakeListener.channel)', current_schema())"
    private static let pendingCountSQL = "SELECT count(*) FROM outbox WHERE state = 'pending'"
    private static let deadLettersSQL = """
        SELECT o.id, p.source, o.device_id, d.app_id, d.token, o.attempts, o.last_error, o.created_at
        FROM outbox AS o
            JOIN devices AS d ON d.id = o.device_id
            JOIN outbox_payloads AS p ON p.id = o.payload_id
        WHERE o.state = 'dead'
        ORDER BY o.id
        LIMIT ?1
        """
    private static let reviveSQL = """
        UPDATE outbox SET state = 'pending', attempts = 0, next_attempt_at = ?1, claimed_until = NULL, claimed_by = NULL
        WHERE state = 'dead'
        """

    /// One row per device of `deviceIDs` that still exists, due at `now`; returns how many.
    static func insert<Connection: SQLConnection>(
        payloadID: Int64, deviceIDs: [Int64], now: Int64, in database: Connection
    ) throws -> Int {
        // One cached statement re-bound per device, all in the caller's transaction.
        try database.withStatement(insertSQL) { statement in
            if Connection.engine == .postgresql {
                try statement.bind(payloadID, at: 1)
                try statement.bindList(deviceIDs, at: 2)
                try statement.bind(now, at: 3)
                try statement.run()
                return database.changes
            }
            var inserted = 0
            for deviceID in deviceIDs {
                defer { statement.reset() }
                try statement.bind(payloadID, deviceID, now)
                do {
                    try statement.run()
                    inserted += database.changes
                } catch let error as DatabaseError where error.extendedResultCode == foreignKeyViolation {
                    continue  // the device is gone: nothing to deliver to it
                }
            }
            return inserted
        }
    }

    /// Up to `limit` pending rows due at `now`, oldest first (not yet claimed: see `claimDue`).
    static func due(limit: Int, now: Int64, in database: some SQLConnection) throws -> [DueRow] {
        try database.withStatement(dueSQL) { row in
            try row.bind(now, limit)
            return try dueRows(row, limit: limit)
        }
    }

    /// Up to `limit` pending rows due at `now`, oldest first, each claimed until `until`
    /// (`claimSQL` on SQLite: an attempt counted, leased to `node`); their `attempts` as before this claim.
    static func claimDue<Connection: SQLConnection>(
        limit: Int, now: Int64, until: Int64, node: String, in database: Connection
    ) throws -> [DueRow] {
        switch Connection.engine {
        case .sqlite:
            // One writer at a time: nothing can claim between the read and the updates.
            let rows = try due(limit: limit, now: now, in: database)
            guard !rows.isEmpty else { return rows }
            try database.withStatement(claimSQL) { statement in
                try statement.bind(until, at: 2)
                try statement.bind(node, at: 3)
                for row in rows {
                    try statement.bind(row.id, at: 1)
                    try statement.run()
                    statement.rewind()
                }
            }
            return rows
        case .postgresql:
            return try database.withStatement(claimDueSQL) { row in
                try row.bind(now, limit, until, node)
                return try dueRows(row, limit: limit)
            }
        }
    }

    /// The rows `ids` (claimed by the caller's transaction as it queued them), in the order of
    /// their ids; their `attempts` as before that claim, as `claimDue` answers them.
    static func claimed<Connection: SQLConnection>(ids: [Int64], in database: Connection) throws -> [DueRow] {
        guard !ids.isEmpty else { return [] }
        return try database.withStatement(claimedSQL) { row in
            guard Connection.engine == .sqlite else {
                try row.bindList(ids, at: 1)
                return try dueRows(row, limit: ids.count)
            }
            var rows: [DueRow] = []
            rows.reserveCapacity(ids.count)
            for id in ids.sorted() {
                try row.bind(id, at: 1)
                rows += try dueRows(row, limit: 1)
                row.rewind()
            }
            return rows
        }
    }

    /// The rows of `dueSQL`, `claimDueSQL` or `claimedSQL`, which select the same columns.
    private static func dueRows(_ row: some SQLRow, limit: Int) throws -> [DueRow] {
        var rows: [DueRow] = []
        rows.reserveCapacity(limit)
        while try row.step() {
            let id = row.int64(0)
            let rawAppID = row.string(4)
            guard let appID = rawAppID.flatMap({ AppID($0) }) else {
                throw StoredValueError(
                    table: "devices", column: "app_id", value: rawAppID ?? "NULL", rowKey: "\(row.int64(3))")
            }
            rows.append(
                DueRow(
                    id: id, payloadID: row.int64(1), attempts: row.int64(2), deviceID: row.int64(3), appID: appID,
                    token: DeviceToken(bytes: row.blob(5) ?? []), sandbox: row.bool(6), apnsTopic: row.string(7)))
        }
        return rows
    }

    /// The payloads of every row queued for `deviceID`, dead letters included.
    static func payloadIDs(deviceID: Int64, in database: some SQLConnection) throws -> [Int64] {
        try database.rows(payloadsOfDeviceSQL, binding: deviceID) { row in row.int64(0) }
    }

    /// True when the row was there.
    static func delete(id: Int64, in database: some SQLConnection) throws -> Bool {
        try database.run(deleteSQL, binding: id) > 0
    }

    /// Deletes the rows of `ids`; returns those that were there.
    static func delete(ids: [Int64], in database: some SQLConnection) throws -> Set<Int64> {
        guard !ids.isEmpty else { return [] }
        return try database.withStatement(deleteManySQL) { row in
            try row.bindList(ids, at: 1)
            return try returnedIDs(row)
        }
    }

    /// Releases the claims on `rows` and makes each due at its time; returns the ids that
    /// were there (and pending).
    static func reschedule(_ rows: [(id: Int64, at: Int64, error: String)], in database: some SQLConnection) throws
        -> Set<Int64>
    {
        try update(rows, rescheduleManySQL, in: database) {
            try $0.bind($1.id, $1.at, $1.error)
        } lists: {
            try $0.bindList(rows.map(\.id), at: 1)
            try $0.bindList(rows.map(\.at), at: 2)
            try $0.bindList(rows.map { Optional($0.error) }, at: 3)
        }
    }

    /// Makes `rows` dead letters with their errors; returns the ids that were there (and pending).
    static func bury(_ rows: [(id: Int64, error: String)], in database: some SQLConnection) throws -> Set<Int64> {
        try update(rows, buryManySQL, in: database) {
            try $0.bind($1.id, $1.error)
        } lists: {
            try $0.bindList(rows.map(\.id), at: 1)
            try $0.bindList(rows.map { Optional($0.error) }, at: 2)
        }
    }

    /// Runs `sql` for `rows`: on SQLite once per row (`bindRow`), on PostgreSQL once for the
    /// whole batch (`lists`); returns the ids it returned.
    private static func update<Connection: SQLConnection, Row>(
        _ rows: [Row], _ sql: EngineSQL, in database: Connection, bindRow: (Connection.Row, Row) throws -> Void,
        lists bindLists: (Connection.Row) throws -> Void
    ) throws -> Set<Int64> {
        guard !rows.isEmpty else { return [] }
        return try database.withStatement(sql) { statement in
            guard Connection.engine == .sqlite else {
                try bindLists(statement)
                return try returnedIDs(statement)
            }
            var ids = Set<Int64>()
            for row in rows {
                defer { statement.reset() }
                try bindRow(statement, row)
                ids.formUnion(try returnedIDs(statement))
            }
            return ids
        }
    }

    private static func returnedIDs(_ row: some SQLRow) throws -> Set<Int64> {
        var ids = Set<Int64>()
        while try row.step() { ids.insert(row.int64(0)) }
        return ids
    }

    static func nextDueAt(in database: some SQLConnection) throws -> Int64? {
        try database.withStatement(nextDueSQL) { try $0.step() ? $0.int64(0) : nil }
    }

    /// Makes the claimed rows of `node` (every node's when nil) due at `now`; returns how many.
    static func releaseClaims(heldBy node: String?, now: Int64, in database: some SQLConnection) throws -> Int {
        guard let node else { return try database.run(releaseClaimsSQL, binding: now) }
        return try database.run(releaseNodeClaimsSQL, binding: now, node)
    }

    /// Rows in flight per node, in node order (rows claimed before nodes were recorded first).
    static func claims(in database: some SQLConnection) throws -> [OutboxClaim] {
        try database.rows(claimsSQL) { row in
            OutboxClaim(node: row.string(0), rows: Int(row.int64(1)), leasedUntil: row.int64(2))
        }
    }

    /// On PostgreSQL, tells every node's listener that rows were queued; nothing on SQLite,
    /// whose one process wakes its worker directly.
    static func announce<Connection: SQLConnection>(in database: Connection) throws {
        guard Connection.engine == .postgresql else { return }
        try database.withStatement(announceSQL) { try $0.run() }
    }

    static func pendingCount(in database: some SQLConnection) throws -> Int {
        try database.withStatement(pendingCountSQL) { try $0.step() ? Int($0.int64(0)) : 0 }
    }

    static func deadLetters(limit: Int, in database: some SQLConnection) throws -> [OutboxDeadLetter] {
        try database.rows(deadLettersSQL, binding: limit) { row in
            OutboxDeadLetter(
                id: row.int64(0), source: row.string(1) ?? "", deviceID: row.int64(2), appID: row.string(3) ?? "",
                token: DeviceToken(bytes: row.blob(4) ?? []).description, attempts: Int(row.int64(5)),
                lastError: row.string(6), createdAt: row.int64(7))
        }
    }

    /// Makes every dead letter pending again, due at `now`, with no attempts; returns how many.
    static func reviveDeadLetters(now: Int64, in database: some SQLConnection) throws -> Int {
        try database.run(reviveSQL, binding: now)
    }
}
