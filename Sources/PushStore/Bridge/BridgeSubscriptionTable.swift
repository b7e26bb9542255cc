import Foundation
import PushCore

/// The SQL of `bridge_subscriptions`: which devices asked for which topic selectors.
enum BridgeSubscriptionTable {
    // The count is a range of the primary key, at most the limit's rows. Callers hold the
    // device row's lock (DeviceTable.upsert writes it), so a device's subscribes count one
    // at a time. (The WHERE also settles SQLite's reading of `INSERT … SELECT … ON CONFLICT`.)
    private static let insertSQL = """
        INSERT INTO bridge_subscriptions (device_id, topic_selector, created_at)
        SELECT ?1, ?2, ?3 WHERE (SELECT count(*) FROM bridge_subscriptions WHERE device_id = ?1) < ?4
        ON CONFLICT (device_id, topic_selector) DO NOTHING
        """
    private static let existsSQL = "SELECT 1 FROM bridge_subscriptions WHERE device_id = ?1 AND topic_selector = ?2"
    private static let deleteSQL = """
        DELETE FROM bridge_subscriptions
        WHERE device_id = (SELECT id FROM devices WHERE app_id = ?1 AND token = ?2) AND topic_selector = ?3
        RETURNING device_id
        """
    // The selectors come as one JSON array (json_each), so that one cached statement serves
    // topics of any depth; each is an exact match on the topic_selector index. A device only
    // receives a push that has a half for its platform.
    private static let subscribersSQL = EngineSQL(
        sqlite: """
            SELECT DISTINCT s.device_id, d.app_id
            FROM bridge_subscriptions AS s JOIN devices AS d ON d.id = s.device_id
            WHERE s.topic_selector IN (SELECT value FROM json_each(?1))
                AND ((d.platform = 'apns' AND ?2) OR (d.platform = 'fcm' AND ?3))
            ORDER BY s.device_id
            """,
        postgresql: """
            SELECT DISTINCT s.device_id, d.app_id
            FROM bridge_subscriptions AS s JOIN devices AS d ON d.id = s.device_id
            WHERE s.topic_selector IN (SELECT jsonb_array_elements_text(CAST(?1 AS jsonb)))
                AND ((d.platform = 'apns' AND ?2 <> 0) OR (d.platform = 'fcm' AND ?3 <> 0))
            ORDER BY s.device_id
            """)

    /// Links `deviceID` to `selector`; false when the link existed already. Throws
    /// `TooManySubscriptions` for a new link past `limit`.
    static func insert(deviceID: Int64, selector: String, limit: Int, now: Int64, in database: some SQLConnection)
        throws -> Bool
    {
        if try database.run(insertSQL, binding: deviceID, selector, now, Int64(limit)) > 0 { return true }
        guard try database.firstRow(existsSQL, binding: deviceID, selector, read: { _ in true }) != nil else {
            throw TooManySubscriptions(limit: limit)
        }
        return false
    }

    /// Removes the link of (app, token) to `selector`; the device id when there was one.
    static func delete(appID: AppID, token: DeviceToken, selector: String, in database: some SQLConnection) throws -> Int64? {
        try database.rows(deleteSQL, binding: appID.rawValue, token.bytes, selector) { row in row.int64(0) }.last
    }

    /// Every device subscribed to any of `selectors` whose platform is in `platforms`, once,
    /// with its app.
    static func subscribers(
        of selectors: [String], platforms: Set<Platform>, in database: some SQLConnection
    ) throws -> [(deviceID: Int64, appID: String)] {
        guard !selectors.isEmpty, !platforms.isEmpty else { return [] }
        let list = String(decoding: try JSONEncoder().encode(selectors), as: UTF8.self)
        return try database.rows(
            subscribersSQL, binding: list, platforms.contains(.apns), platforms.contains(.fcm)
        ) { row in (row.int64(0), row.string(1) ?? "") }
    }
}
