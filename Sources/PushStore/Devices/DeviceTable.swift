import PushCore

/// The SQL of `devices`: one row per (app, canonical token), whichever dialect reported it.
enum DeviceTable {
    // An upsert in three statements, not one INSERT … ON CONFLICT … RETURNING: SQLite
    // gathers RETURNING rows in a temporary table, which made that statement cost about twice
    // as much as these (a Token Reporter request runs two). Callers hold the write
    // transaction, so nothing comes between the look-up and the insert.
    private static let findSQL = "SELECT id FROM devices WHERE app_id = ?1 AND token = ?2"
    // On a repeated report only what the client said and the time change. The app and token
    // are checked too, so that a caller that expects a device (the one an account links to)
    // finds out by the row count whether the report is that device's.
    private static let recordReportSQL = """
        UPDATE devices SET reported_token = ?4, updated_at = ?5 WHERE id = ?1 AND app_id = ?2 AND token = ?3
        """
    // The Token Reporter's repeated report, once the caller has read the row (`reportChanges`).
    private static let recordReportByIDSQL = "UPDATE devices SET reported_token = ?2, updated_at = ?3 WHERE id = ?1"

    /// What `updated_at` needs to be exact to: retention's unit, a day (UTC). Retention reads
    /// nothing finer, and `devices_updated` (0010) indexes the column, so that every write of
    /// it moves an index entry (two, `devices_unregistered` too, for an unregistered app): the
    /// Token Reporter's repeated reports, nearly all of its traffic, write the device only
    /// when its day or spelling changed (`reportChanges`; the PostgreSQL functions of
    /// migration 0019 alike). A device thus keeps the first time of its last day, and
    /// housekeeping counts retention from the end of that day (`retentionCutoff`): a device
    /// lives at least the retention after its last report, and at most a day more.
    static let timePrecision: Int64 = 86_400

    /// Whether a report of a device whose row says `storedSpelling`, `storedAt` changes it:
    /// another spelling, or a later day than the stored time's. The same report again within
    /// the day writes nothing.
    static func reportChanges(storedSpelling: String?, storedAt: Int64, reportedToken: String, now: Int64) -> Bool {
        storedSpelling != reportedToken || !recordedToday(storedAt, now: now)
    }

    /// Whether a report recorded at `storedAt` is of `now`'s day: one of that day need not be
    /// recorded again (see `reportChanges`).
    static func recordedToday(_ storedAt: Int64, now: Int64) -> Bool {
        day(of: storedAt) >= day(of: now)
    }

    /// Devices whose `updated_at` is below this are past a retention of `seconds` at `now`:
    /// the start of the day `seconds` before `now`, so that a device's whole last day is
    /// past it.
    static func retentionCutoff(now: Int64, seconds: Int64) -> Int64 {
        day(of: now - seconds) * timePrecision
    }

    private static func day(of time: Int64) -> Int64 {
        time >= 0 ? time / timePrecision : (time - timePrecision + 1) / timePrecision
    }

    // The platform comes from the app when it is registered and stays NULL otherwise.
    // PostgreSQL has no "last insert rowid" but the session's lastval(), a second round
    // trip: there the INSERT returns the id itself.
    private static let insertSQL = EngineSQL(
        sqlite: """
            INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
            VALUES (?1, ?2, ?3, (SELECT platform FROM apps WHERE id = ?1), ?4, ?4)
            """,
        postgresql: """
            INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
            VALUES (?1, ?2, ?3, (SELECT platform FROM apps WHERE id = ?1), ?4, ?4)
            RETURNING id
            """)
    // `IS DISTINCT FROM` (NULL-safe, and spelled alike by both engines) skips rows already
    // right, so re-adding an app does not rewrite all its devices.
    private static let setPlatformSQL = """
        UPDATE devices SET platform = ?2 WHERE app_id = ?1 AND platform IS DISTINCT FROM ?2
        """
    // Every owner table of the schema is listed here: a table that links to devices and is
    // missing from this list would have its devices deleted under it.
    private static let deleteIfOwnerlessSQL = """
        DELETE FROM devices
        WHERE id = ?1
            AND NOT EXISTS (SELECT 1 FROM acrobits_accounts WHERE device_id = ?1)
            AND NOT EXISTS (SELECT 1 FROM user_devices WHERE device_id = ?1)
            AND NOT EXISTS (SELECT 1 FROM beams_clients WHERE device_id = ?1)
            AND NOT EXISTS (SELECT 1 FROM bridge_subscriptions WHERE device_id = ?1)
        """
    // updated_at is seconds, APNs' timestamp milliseconds: a report in a later second than
    // the one the token died in is a re-registration. A report within that same second
    // cannot be told apart and is pruned: keeping it would keep a dead device forever, as
    // every later push answers the same timestamp. The Token Reporter's same report again
    // within a day leaves updated_at as it was (`timePrecision`): such a report after the
    // token died cannot be told apart either, and the device is pruned; the phone's next
    // report makes it again.
    private static let pruneSQL = "DELETE FROM devices WHERE id = ?1 AND (?2 IS NULL OR updated_at <= ?2 / 1000)"
    private static let selectAllSQL = """
        SELECT d.id, d.app_id, d.platform, d.token, d.reported_token, d.sandbox, d.created_at, d.updated_at,
            o.outcome, o.at
        FROM devices AS d LEFT JOIN device_outcomes AS o ON o.device_id = d.id
        ORDER BY d.app_id, d.id
        """

    /// The id of the device for (app, token), created when new.
    static func upsert(appID: AppID, token: DeviceToken, reportedToken: String, now: Int64, in database: some SQLConnection)
        throws -> Int64
    {
        let known = try database.withStatement(findSQL) { row in
            try row.bind(appID.rawValue, token.bytes)
            return try row.step() ? row.int64(0) : nil
        }
        if let known {
            _ = try recordReport(
                ofDevice: known, appID: appID, token: token, reportedToken: reportedToken, now: now, in: database)
            return known
        }
        let returned = try database.withStatement(insertSQL) { statement -> Int64? in
            try statement.bind(appID.rawValue, token.bytes, reportedToken, now)
            // A row on PostgreSQL (RETURNING id); none on SQLite, whose step just runs it.
            return try statement.step() ? statement.int64(0) : nil
        }
        if let returned { return returned }
        return try database.lastInsertedID()
    }

    /// Records a report of (app, token) on device `id` if that is the device's (app, token);
    /// false when it is not, and nothing changed.
    static func recordReport(
        ofDevice id: Int64, appID: AppID, token: DeviceToken, reportedToken: String, now: Int64, in database: some SQLConnection
    ) throws -> Bool {
        try database.run(recordReportSQL, binding: id, appID.rawValue, token.bytes, reportedToken, now) > 0
    }

    /// Records a report on device `id`, which the caller read in this transaction and
    /// `reportChanges` said it changes.
    static func recordReport(ofDevice id: Int64, reportedToken: String, now: Int64, in database: some SQLConnection)
        throws
    {
        try database.run(recordReportByIDSQL, binding: id, reportedToken, now)
    }

    /// Resolves (or, with nil, forgets) the platform of every device of `appID`.
    static func setPlatform(_ platform: Platform?, appID: AppID, in database: some SQLConnection) throws {
        try database.run(setPlatformSQL, binding: appID.rawValue, platform?.rawValue)
    }

    /// Deletes those of `ids` that no owner of any dialect links to any more. Callers pass the
    /// devices whose links they just removed or moved, inside the same transaction.
    static func deleteOwnerless(_ ids: some Sequence<Int64>, in database: some SQLConnection) throws {
        for id in Set(ids) {
            try database.run(deleteIfOwnerlessSQL, binding: id)
        }
    }

    /// Deletes the device (its links and queued pushes cascade) unless it was re-registered
    /// after `deadSince` (unix ms); true when it was deleted.
    static func prune(id: Int64, deadSince: Int64?, in database: some SQLConnection) throws -> Bool {
        try database.run(pruneSQL, binding: id, deadSince) > 0
    }

    /// Every device, ordered by app then id, without owners (the owner tables fill them in).
    static func all(in database: some SQLConnection) throws -> [StoredDevice] {
        try database.withStatement(selectAllSQL) { row in
            var devices: [StoredDevice] = []
            while try row.step() {
                let id = row.int64(0)
                func invalid(_ column: String, _ value: String?) -> StoredValueError {
                    StoredValueError(table: "devices", column: column, value: value ?? "NULL", rowKey: "\(id)")
                }
                let rawAppID = row.string(1)
                guard let appID = rawAppID.flatMap({ AppID($0) }) else { throw invalid("app_id", rawAppID) }
                var platform: Platform?
                if let rawPlatform = row.string(2) {
                    guard let parsed = Platform(rawValue: rawPlatform) else { throw invalid("platform", rawPlatform) }
                    platform = parsed
                }
                devices.append(
                    StoredDevice(
                        id: id, appID: appID, platform: platform, token: DeviceToken(bytes: row.blob(3) ?? []),
                        reportedToken: row.string(4) ?? "", sandbox: row.bool(5), createdAt: row.int64(6),
                        updatedAt: row.int64(7), owners: [], lastOutcome: row.string(8),
                        lastOutcomeAt: row.optionalInt64(9)))
            }
            return devices
        }
    }
}
