import PushCore

/// The read-only SQL of pnm2's lookups: a device by (app, token), an account's devices.
enum AcrobitsPushTable {
    private static let deviceSQL = "SELECT id, sandbox FROM devices WHERE app_id = ?1 AND token = ?2"
    private static let accountSQL = """
        SELECT a.channel, d.id, d.app_id, d.token, d.sandbox
        FROM acrobits_accounts AS a JOIN devices AS d ON d.id = a.device_id
        WHERE a.selector = ?1
        """

    static func device(appID: AppID, token: DeviceToken, in database: some SQLConnection) throws -> AddressedDevice? {
        try database.withStatement(deviceSQL) { row in
            try row.bind(appID.rawValue, at: 1)
            try row.bind(token.bytes, at: 2)
            guard try row.step() else { return nil }
            return AddressedDevice(id: row.int64(0), appID: appID, token: token, sandbox: row.bool(1))
        }
    }

    static func accountDevices(selector: String, in database: some SQLConnection) throws -> [AcrobitsChannel: AddressedDevice] {
        try database.withStatement(accountSQL) { row in
            try row.bind(selector, at: 1)
            var devices: [AcrobitsChannel: AddressedDevice] = [:]
            while try row.step() {
                let rawChannel = row.string(0)
                let rawApp = row.string(2)
                guard let channel = rawChannel.flatMap(AcrobitsChannel.init(rawValue:)) else {
                    throw StoredValueError(
                        table: "acrobits_accounts", column: "channel", value: rawChannel ?? "NULL", rowKey: selector)
                }
                guard let appID = rawApp.flatMap({ AppID($0) }) else {
                    throw StoredValueError(table: "devices", column: "app_id", value: rawApp ?? "NULL", rowKey: selector)
                }
                devices[channel] = AddressedDevice(
                    id: row.int64(1), appID: appID, token: DeviceToken(bytes: row.blob(3) ?? []), sandbox: row.bool(4))
            }
            return devices
        }
    }
}
