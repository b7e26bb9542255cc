import PushCore

/// The SQL that finds an app by its Pusher Beams `app_key` (the `apps` row, read only).
enum BeamsAppKeyQuery {
    private static let byKeySQL = "SELECT id, platform FROM apps WHERE app_key = ?"

    static func app(appKey: String, in database: Database) throws -> BeamsApp? {
        try database.withStatement(byKeySQL) { row in
            try row.bind(appKey, at: 1)
            guard try row.step() else { return nil }
            return try decode(row, idColumn: 0, platformColumn: 1, appKey: appKey)
        }
    }

    /// A `BeamsApp` from the id and platform columns of the current row.
    static func decode(_ row: Statement, idColumn: Int32, platformColumn: Int32, appKey: String) throws -> BeamsApp {
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
