import PushCore

/// The aggregates of the status page besides the outbox's: each one statement, the same on
/// both engines; none runs on a request path other than the operator's pages.
enum StatusQueries {
    private static let deviceCountsSQL = """
        SELECT app_id, platform, COUNT(*) FROM devices GROUP BY app_id, platform ORDER BY app_id, platform
        """
    private static let deliveryLogCountsSQL = """
        SELECT outcome, COUNT(*) FROM delivery_log WHERE at >= ?1 GROUP BY outcome
        """
    // Bounded: the outcome texts of a busy hour are few, but each carries its reason.
    private static let lastOutcomeCountsSQL = """
        SELECT outcome, COUNT(*) FROM device_outcomes WHERE at >= ?1
        GROUP BY outcome ORDER BY COUNT(*) DESC LIMIT 50
        """
    private static let lastProblemsSQL = """
        SELECT d.app_id, o.outcome, o.at FROM device_outcomes AS o JOIN devices AS d ON d.id = o.device_id
        WHERE o.outcome <> 'delivered'
        ORDER BY o.at DESC, o.device_id DESC LIMIT ?1
        """

    static func deviceCounts(in database: some SQLConnection) throws -> [DeviceCount] {
        try database.rows(deviceCountsSQL) { row in
            DeviceCount(
                appID: row.string(0) ?? "", platform: row.string(1).flatMap(Platform.init(rawValue:)),
                count: Int(row.int64(2)))
        }
    }

    static func deliveryLogCounts(since: Int64, in database: some SQLConnection) throws -> [String: Int] {
        try counts(deliveryLogCountsSQL, since: since, in: database)
    }

    static func lastOutcomeCounts(since: Int64, in database: some SQLConnection) throws -> [String: Int] {
        try counts(lastOutcomeCountsSQL, since: since, in: database)
    }

    static func lastProblems(limit: Int, in database: some SQLConnection) throws -> [AppProblem] {
        var seen = Set<String>()
        return try database.rows(lastProblemsSQL, binding: limit) { row in
            AppProblem(appID: row.string(0) ?? "", outcome: row.string(1) ?? "", at: row.int64(2))
        }.filter { seen.insert($0.appID).inserted }
    }

    private static func counts(_ sql: String, since: Int64, in database: some SQLConnection) throws -> [String: Int] {
        let rows = try database.rows(sql, binding: since) { row in (row.string(0) ?? "", Int(row.int64(1))) }
        return Dictionary(rows, uniquingKeysWith: +)
    }
}
