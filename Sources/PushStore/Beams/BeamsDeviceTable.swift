import PushCore

/// The SQL of the device API's view of `beams_clients` and `beams_interests`: clients by
/// their device, metadata, whole interest sets and users.
enum BeamsDeviceTable {
    private static let onDeviceSQL = """
        SELECT id FROM beams_clients WHERE app_id = ?1 AND device_id = ?2 ORDER BY updated_at DESC, id LIMIT 1
        """
    private static let touchSQL = """
        UPDATE beams_clients SET metadata = COALESCE(?2, metadata), updated_at = ?3 WHERE id = ?1
        """
    private static let detailsSQL = "SELECT user_id, metadata FROM beams_clients WHERE id = ?1"
    private static let deleteSQL = "DELETE FROM beams_clients WHERE id = ?1 RETURNING device_id"
    private static let clearInterestsSQL = "DELETE FROM beams_interests WHERE client_id = ?1"
    private static let addInterestSQL =
        "INSERT INTO beams_interests (client_id, interest) VALUES (?1, ?2) ON CONFLICT DO NOTHING"
    private static let interestsSQL = """
        SELECT interest FROM beams_interests WHERE client_id = ?1 AND interest > ?2 ORDER BY interest LIMIT ?3
        """
    private static let bindUserSQL = "UPDATE beams_clients SET user_id = ?2, updated_at = ?3 WHERE id = ?1"
    // Two devices bound to one user at once must not both see room for one more: PostgreSQL
    // serialises the binds of a user on a lock held to the transaction's end; SQLite has one
    // writer anyway.
    private static let lockUserSQL = EngineSQL(
        sqlite: "SELECT length(?1)", postgresql: "SELECT pg_advisory_xact_lock(hashtext(CAST(?1 AS text)))")
    private static let userDevicesSQL = "SELECT count(*) FROM beams_clients WHERE user_id = ?1 AND app_id = ?2"
    private static let deleteUserSQL = EngineSQL(
        sqlite: """
            DELETE FROM beams_clients WHERE user_id = ?1 AND app_id IN (SELECT value FROM json_each(?2))
            RETURNING device_id
            """,
        postgresql: """
            DELETE FROM beams_clients
            WHERE user_id = ?1 AND app_id IN (SELECT jsonb_array_elements_text(CAST(?2 AS jsonb)))
            RETURNING device_id
            """)
    // As the publish to interests (BeamsInterestTable): selected and queued in one statement,
    // each device once however many of its clients are bound to the users.
    private static let enqueueUserDevicesSQL = EngineSQL(
        sqlite: """
            INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at)
            SELECT DISTINCT ?3, c.device_id, ?4, ?4 FROM beams_clients AS c
            WHERE c.user_id IN (SELECT value FROM json_each(?2)) AND c.app_id IN (SELECT value FROM json_each(?1))
            """,
        postgresql: """
            INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at)
            SELECT DISTINCT ?3, c.device_id, ?4, ?4 FROM beams_clients AS c
            WHERE c.user_id IN (SELECT jsonb_array_elements_text(CAST(?2 AS jsonb)))
                AND c.app_id IN (SELECT jsonb_array_elements_text(CAST(?1 AS jsonb)))
            """)

    /// The client of `appID` on device `deviceID` updated last, if any.
    static func client(appID: AppID, deviceID: Int64, in database: some SQLConnection) throws -> String? {
        try database.firstRow(onDeviceSQL, binding: appID.rawValue, deviceID) { row in row.string(0) }
    }

    /// Marks the client used now, replacing its metadata when `metadata` is not nil; false
    /// when there is no such client.
    static func touch(id: String, metadata: String?, now: Int64, in database: some SQLConnection) throws -> Bool {
        try database.run(touchSQL, binding: id, metadata, now) > 0
    }

    /// The client's (user id, metadata).
    static func details(id: String, in database: some SQLConnection) throws -> (userID: String?, metadata: String?) {
        try database.firstRow(detailsSQL, binding: id) { row in (row.string(0), row.string(1)) } ?? (nil, nil)
    }

    /// Deletes the client; its device id, nil when there was no such client.
    static func delete(id: String, in database: some SQLConnection) throws -> Int64? {
        try database.firstRow(deleteSQL, binding: id) { row in row.int64(0) }
    }

    static func replaceInterests(clientID: String, with interests: [String], in database: some SQLConnection) throws {
        try database.run(clearInterestsSQL, binding: clientID)
        for interest in interests {
            try database.run(addInterestSQL, binding: clientID, interest)
        }
    }

    /// Up to `limit` interests after `cursor` ("" sorts before every name).
    static func interests(clientID: String, after cursor: String, limit: Int, in database: some SQLConnection) throws
        -> [String]
    {
        try database.rows(interestsSQL, binding: clientID, cursor, Int64(limit)) { row in row.string(0) ?? "" }
    }

    static func bindUser(clientID: String, userID: String, now: Int64, in database: some SQLConnection) throws {
        try database.run(bindUserSQL, binding: clientID, userID, now)
    }

    /// Holds the binds of `userID` back until this transaction ends (see `lockUserSQL`).
    static func lockUser(_ userID: String, in database: some SQLConnection) throws {
        try database.run(lockUserSQL, binding: userID)
    }

    /// How many clients of `appID` are bound to `userID`.
    static func deviceCount(userID: String, appID: AppID, in database: some SQLConnection) throws -> Int {
        try database.firstRow(userDevicesSQL, binding: userID, appID.rawValue) { row in Int(row.int64(0)) } ?? 0
    }

    /// Deletes the user's clients of the apps (a JSON array of ids); their device ids.
    static func deleteUser(_ userID: String, appIDsJSON: String, in database: some SQLConnection) throws -> [Int64] {
        try database.rows(deleteUserSQL, binding: userID, appIDsJSON) { row in row.int64(0) }
    }

    static func enqueueUserDevices(
        appIDsJSON: String, usersJSON: String, payloadID: Int64, now: Int64, in database: some SQLConnection
    ) throws -> Int {
        try database.run(enqueueUserDevicesSQL, binding: appIDsJSON, usersJSON, payloadID, now)
    }
}
