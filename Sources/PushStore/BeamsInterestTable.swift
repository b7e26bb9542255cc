import PushCore

/// The SQL of `beams_interests`: which client subscribed which interest.
enum BeamsInterestTable {
    private static let subscribeSQL = "INSERT OR IGNORE INTO beams_interests (client_id, interest) VALUES (?1, ?2)"
    private static let unsubscribeSQL = "DELETE FROM beams_interests WHERE client_id = ?1 AND interest = ?2"
    // The interests come as one bound JSON array (json_each), so that one cached statement
    // serves any number of them. The outer loop is the interest index, the client a
    // primary-key probe; DISTINCT because a device subscribed through several interests (or
    // several clients) receives a publish once.
    private static let subscribedDevicesSQL = """
        SELECT DISTINCT c.device_id
        FROM beams_interests AS i JOIN beams_clients AS c ON c.id = i.client_id
        WHERE i.interest IN (SELECT value FROM json_each(?2)) AND c.app_id = ?1
        """

    static func subscribe(clientID: String, interest: String, in database: Database) throws {
        try database.withStatement(subscribeSQL) {
            try $0.bind(clientID, at: 1)
            try $0.bind(interest, at: 2)
            try $0.run()
        }
    }

    static func unsubscribe(clientID: String, interest: String, in database: Database) throws {
        try database.withStatement(unsubscribeSQL) {
            try $0.bind(clientID, at: 1)
            try $0.bind(interest, at: 2)
            try $0.run()
        }
    }

    /// The devices of `appID`'s clients subscribed to any of `interests`, each once.
    /// - Parameter interestsJSON: the interests as a JSON array of strings.
    static func subscribedDevices(appID: AppID, interestsJSON: String, in database: Database) throws -> [Int64] {
        try database.withStatement(subscribedDevicesSQL) { row in
            try row.bind(appID.rawValue, at: 1)
            try row.bind(interestsJSON, at: 2)
            var deviceIDs: [Int64] = []
            while try row.step() {
                deviceIDs.append(row.int64(0))
            }
            return deviceIDs
        }
    }
}
