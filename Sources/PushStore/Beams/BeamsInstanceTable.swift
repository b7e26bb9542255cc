import PushCore

/// The SQL of `beams_instances`: which app serves each platform behind a Pusher Beams
/// `app_key` (at most one per platform, one key per app).
enum BeamsInstanceTable {
    private static let byKeySQL = """
        SELECT b.app_id, a.platform FROM beams_instances AS b JOIN apps AS a ON a.id = b.app_id
        WHERE b.app_key = ? ORDER BY a.platform
        """
    private static let holderSQL = "SELECT app_id FROM beams_instances WHERE app_key = ?1 AND platform = ?2"
    private static let clearSQL = "DELETE FROM beams_instances WHERE app_id = ?"
    private static let insertSQL = "INSERT INTO beams_instances (app_key, platform, app_id) VALUES (?1, ?2, ?3)"

    /// The apps behind `appKey`, or nil when it is nobody's key.
    static func instance(appKey: String, in database: some SQLConnection) throws -> BeamsInstance? {
        let apps = try database.rows(byKeySQL, binding: appKey) { row in
            try decode(row, idColumn: 0, platformColumn: 1, appKey: appKey)
        }
        return apps.isEmpty ? nil : BeamsInstance(appKey: appKey, apps: apps)
    }

    /// The app that serves `platform` behind `appKey`, if any.
    static func holder(appKey: String, platform: Platform, in database: some SQLConnection) throws -> AppID? {
        try database.firstRow(holderSQL, binding: appKey, platform.rawValue) { row in
            let raw = row.string(0)
            guard let id = raw.flatMap({ AppID($0) }) else {
                throw StoredValueError(table: "beams_instances", column: "app_id", value: raw ?? "NULL", rowKey: appKey)
            }
            return id
        }
    }

    /// Puts `appID` behind `appKey` for `platform`, or with no key takes it from behind any;
    /// run with every write of the app, so that the row's platform is always the app's.
    /// Throws the database's constraint error when another app holds (key, platform): the
    /// catalog checks `holder` first to say so in words.
    static func assign(appID: AppID, appKey: String?, platform: Platform, in database: some SQLConnection) throws {
        try database.run(clearSQL, binding: appID.rawValue)
        guard let appKey else { return }
        try database.run(insertSQL, binding: appKey, platform.rawValue, appID.rawValue)
    }

    /// A `BeamsApp` from the id and platform columns of the current row.
    static func decode(_ row: some SQLRow, idColumn: Int32, platformColumn: Int32, appKey: String) throws -> BeamsApp {
        let rawID = row.string(idColumn)
        guard let id = rawID.flatMap({ AppID($0) }) else {
            throw StoredValueError(table: "apps", column: "id", value: rawID ?? "NULL", rowKey: appKey)
        }
        let rawPlatform = row.string(platformColumn)
        guard let platform = rawPlatform.flatMap({ Platform(rawValue: $0) }) else {
            throw StoredValueError(table: "apps", column: "platform", value: rawPlatform ?? "NULL", rowKey: id.rawValue)
        }
        return BeamsApp(id: id, platform: platform, appKey: appKey)
    }
}
