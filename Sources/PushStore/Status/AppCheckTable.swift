import PushCore

/// The SQL of `app_checks`: each app's last `apps check`, one row per app.
enum AppCheckTable {
    // The same on both engines.
    private static let saveSQL = """
        INSERT INTO app_checks (app_id, checked_at, ok, detail) VALUES (?1, ?2, ?3, ?4)
        ON CONFLICT (app_id) DO UPDATE SET checked_at = excluded.checked_at, ok = excluded.ok, detail = excluded.detail
        """
    private static let allSQL = "SELECT app_id, checked_at, ok, detail FROM app_checks ORDER BY app_id"

    static func save(_ check: AppCheckRecord, in database: some SQLConnection) throws {
        // The detail is bounded: an upstream's answer is quoted in it.
        try database.run(
            saveSQL, binding: check.appID.rawValue, check.checkedAt, check.ok, String(check.detail.prefix(500)))
    }

    static func all(in database: some SQLConnection) throws -> [AppCheckRecord] {
        try database.rows(allSQL) { row in
            let raw = row.string(0) ?? ""
            guard let appID = AppID(raw) else {
                throw StoredValueError(table: "app_checks", column: "app_id", value: raw, rowKey: raw)
            }
            return AppCheckRecord(
                appID: appID, checkedAt: row.int64(1), ok: row.bool(2) ?? false, detail: row.string(3) ?? "")
        }
    }
}
