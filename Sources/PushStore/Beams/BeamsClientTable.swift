import PushCore

/// The SQL of `beams_clients`: one row per Beams client (app install), linked to its device.
enum BeamsClientTable {
    private static let deleteForAppSQL = "DELETE FROM beams_clients WHERE app_id = ? RETURNING device_id"
    // The key of the app's instance comes along: every client request is checked against it.
    private static let selectSQL = """
        SELECT c.app_id, a.platform, b.app_key, c.device_id
        FROM beams_clients AS c JOIN apps AS a ON a.id = c.app_id
        LEFT JOIN beams_instances AS b ON b.app_id = c.app_id
        WHERE c.id = ?
        """
    private static let insertSQL = """
        INSERT INTO beams_clients (id, app_id, device_id, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)
        """
    private static let moveSQL = "UPDATE beams_clients SET device_id = ?2, updated_at = ?3 WHERE id = ?1"

    /// A client as stored: its app, and the device it pushes to.
    struct Row {
        var client: BeamsClient
        var deviceID: Int64
    }

    /// Removes the clients of `appID` (their interests cascade); returns their device ids.
    static func deleteClients(appID: AppID, in database: some SQLConnection) throws -> [Int64] {
        try database.rows(deleteForAppSQL, binding: appID.rawValue) { row in row.int64(0) }
    }

    static func client(id: String, in database: some SQLConnection) throws -> Row? {
        try database.firstRow(selectSQL, binding: id) { row in
            // A client is only ever created through its app's key; an app's key removed later
            // leaves its clients unable to prove anything (no key equals "").
            let appKey = row.string(2) ?? ""
            let app = try BeamsInstanceTable.decode(row, idColumn: 0, platformColumn: 1, appKey: appKey)
            return Row(client: BeamsClient(id: id, app: app), deviceID: row.int64(3))
        }
    }

    static func insert(id: String, appID: AppID, deviceID: Int64, now: Int64, in database: some SQLConnection) throws {
        try database.run(insertSQL, binding: id, appID.rawValue, deviceID, now)
    }

    static func move(id: String, toDevice deviceID: Int64, now: Int64, in database: some SQLConnection) throws {
        try database.run(moveSQL, binding: id, deviceID, now)
    }
}
