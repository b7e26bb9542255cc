import PushCore

/// The read-only SQL of pnm2's device lookup: a device by (app, token).
enum AcrobitsPushTable {
    private static let deviceSQL = "SELECT id, sandbox FROM devices WHERE app_id = ?1 AND token = ?2"

    static func device(appID: AppID, token: DeviceToken, in database: some SQLConnection) throws -> AddressedDevice? {
        try database.withStatement(deviceSQL) { row in
            try row.bind(appID.rawValue, at: 1)
            try row.bind(token.bytes, at: 2)
            guard try row.step() else { return nil }
            return AddressedDevice(id: row.int64(0), appID: appID, token: token, sandbox: row.bool(1))
        }
    }
}
