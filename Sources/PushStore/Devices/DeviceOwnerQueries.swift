import PushCore

/// Every device's owners in the dialects whose tables have no store code of their own here
/// (cospace users, Beams clients, bridge subscriptions), for operators' device listings.
enum DeviceOwnerQueries {
    private static let cospaceSQL = """
        SELECT user_devices.device_id, users.id, users.name
        FROM user_devices JOIN users ON users.id = user_devices.user_id
        ORDER BY user_devices.device_id, users.name
        """
    private static let beamsSQL = """
        SELECT beams_clients.device_id, beams_clients.id, beams_interests.interest
        FROM beams_clients LEFT JOIN beams_interests ON beams_interests.client_id = beams_clients.id
        ORDER BY beams_clients.device_id, beams_clients.id, beams_interests.interest
        """
    private static let bridgeSQL = """
        SELECT device_id, topic_selector FROM bridge_subscriptions ORDER BY device_id, topic_selector
        """

    /// The owners of every dialect, by device id, Acrobits first.
    static func all(in database: some SQLConnection) throws -> [Int64: [DeviceOwner]] {
        var owners = try AcrobitsAccountTable.owners(in: database)
        try database.withStatement(cospaceSQL) { row in
            while try row.step() {
                owners[row.int64(0), default: []].append(.cospaceUser(id: row.string(1) ?? "", name: row.string(2) ?? ""))
            }
        }
        try database.withStatement(beamsSQL) { row in
            // One row per (client, interest): gather each client's interests into one owner.
            var current: (device: Int64, client: String, interests: [String])?
            func flush() {
                if let done = current {
                    owners[done.device, default: []].append(.beamsClient(id: done.client, interests: done.interests))
                }
            }
            while try row.step() {
                let device = row.int64(0)
                let client = row.string(1) ?? ""
                if current?.client != client {
                    flush()
                    current = (device, client, [])
                }
                if let interest = row.string(2) { current?.interests.append(interest) }
            }
            flush()
        }
        try database.withStatement(bridgeSQL) { row in
            while try row.step() {
                owners[row.int64(0), default: []].append(.bridgeSubscription(selector: row.string(1) ?? ""))
            }
        }
        return owners
    }
}
