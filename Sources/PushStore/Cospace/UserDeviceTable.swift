import PushCore

/// The SQL of `user_devices` (which devices a cospace user registered) and of the per-device
/// APNs settings cospace stores on `devices`.
///
/// A cospace APNs registration always stores an `apns_topic` on its device and a GCM one
/// never does: that is how a user's links are told apart without trusting `platform`, which
/// is NULL while the device's app is not registered.
enum UserDeviceTable {
    /// One link as `GET /api/push` needs it.
    struct Link {
        var deviceID: Int64
        var appID: String
        var token: DeviceToken
        var reportedToken: String
        var sandbox: Bool?
        var apnsTopic: String?
        var appSandbox: Bool?
        var appTeamID: String?
        var appTopic: String?
    }

    private static let linkSQL = "INSERT INTO user_devices (user_id, device_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING"
    private static let linksSQL = """
        SELECT d.id, d.app_id, d.token, d.reported_token, d.sandbox, d.apns_topic, a.sandbox, a.apns_team_id,
            a.apns_topic
        FROM user_devices AS u
            JOIN devices AS d ON d.id = u.device_id
            LEFT JOIN apps AS a ON a.id = d.app_id
        WHERE u.user_id = ?1
        ORDER BY d.id
        """
    private static let deviceIDsSQL = """
        SELECT u.device_id, d.app_id FROM user_devices AS u JOIN devices AS d ON d.id = u.device_id
        WHERE u.user_id = ?1 ORDER BY u.device_id
        """
    private static let unlinkAllSQL = "DELETE FROM user_devices WHERE user_id = ?1 RETURNING device_id"
    private static let unlinkAPNsSQL = """
        DELETE FROM user_devices
        WHERE user_id = ?1
            AND device_id IN (
                SELECT d.id FROM user_devices AS l JOIN devices AS d ON d.id = l.device_id
                WHERE l.user_id = ?1 AND d.token = ?2 AND d.apns_topic IS NOT NULL AND d.id IS DISTINCT FROM ?3)
        RETURNING device_id
        """
    private static let unlinkDeviceSQL = """
        DELETE FROM user_devices
        WHERE user_id = ?1 AND device_id = (SELECT id FROM devices WHERE app_id = ?2 AND token = ?3)
        RETURNING device_id
        """
    // An app of exactly that id first; otherwise one registered with that team id and the
    // bundle id as its topic (an operator who named the app differently).
    private static let apnsAppSQL = """
        SELECT id FROM apps
        WHERE platform = 'apns' AND (id = ?1 OR (apns_team_id = ?2 AND apns_topic = ?3))
        ORDER BY id = ?1 DESC, id
        LIMIT 1
        """
    private static let setAPNsSettingsSQL = "UPDATE devices SET sandbox = ?2, apns_topic = ?3 WHERE id = ?1"

    static func link(userID: String, deviceID: Int64, in database: some SQLConnection) throws {
        try database.run(linkSQL, binding: userID, deviceID)
    }

    static func links(userID: String, in database: some SQLConnection) throws -> [Link] {
        try database.rows(linksSQL, binding: userID) { row in
            Link(
                deviceID: row.int64(0), appID: row.string(1) ?? "", token: DeviceToken(bytes: row.blob(2) ?? []),
                reportedToken: row.string(3) ?? "", sandbox: row.bool(4), apnsTopic: row.string(5),
                appSandbox: row.bool(6), appTeamID: row.string(7), appTopic: row.string(8))
        }
    }

    /// The user's devices with their apps.
    static func devices(userID: String, in database: some SQLConnection) throws -> [(id: Int64, appID: String)] {
        try database.rows(deviceIDsSQL, binding: userID) { row in (row.int64(0), row.string(1) ?? "") }
    }

    /// Removes every link of the user; returns the devices they pointed at.
    static func unlinkAll(userID: String, in database: some SQLConnection) throws -> [Int64] {
        try database.rows(unlinkAllSQL, binding: userID) { row in row.int64(0) }
    }

    /// Removes the user's links to APNs devices with `token`, except to `keeping`.
    static func unlinkAPNs(userID: String, token: DeviceToken, keeping: Int64?, in database: some SQLConnection) throws
        -> [Int64]
    {
        try database.rows(unlinkAPNsSQL, binding: userID, token.bytes, keeping) { row in row.int64(0) }
    }

    static func unlink(userID: String, appID: AppID, token: DeviceToken, in database: some SQLConnection) throws -> [Int64] {
        try database.rows(unlinkDeviceSQL, binding: userID, appID.rawValue, token.bytes) { row in row.int64(0) }
    }

    /// The registered APNs app a cospace `application_id` names, if any.
    static func apnsApp(applicationID: String, teamID: String, bundleID: String, in database: some SQLConnection) throws
        -> AppID?
    {
        try database.firstRow(apnsAppSQL, binding: applicationID, teamID, bundleID) { row in
            row.string(0).flatMap { AppID($0) }
        }
    }

    static func setAPNsSettings(deviceID: Int64, sandbox: Bool?, apnsTopic: String, in database: some SQLConnection) throws {
        try database.run(setAPNsSettingsSQL, binding: deviceID, sandbox, apnsTopic)
    }

}
