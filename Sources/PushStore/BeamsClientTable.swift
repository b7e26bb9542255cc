import PushCore

/// The SQL of `beams_clients`. For now only what removing an app needs; the Beams dialect's
/// store work adds the rest here.
enum BeamsClientTable {
    private static let deleteForAppSQL = "DELETE FROM beams_clients WHERE app_id = ? RETURNING device_id"

    /// Removes the clients of `appID` (their interests cascade); returns their device ids.
    static func deleteClients(appID: AppID, in database: Database) throws -> [Int64] {
        try database.withStatement(deleteForAppSQL) { row in
            try row.bind(appID.rawValue, at: 1)
            var deviceIDs: [Int64] = []
            while try row.step() {
                deviceIDs.append(row.int64(0))
            }
            return deviceIDs
        }
    }
}
