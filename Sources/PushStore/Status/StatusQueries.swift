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
        try database.withStatement(deviceCountsSQL) { row in
            var counts: [DeviceCount] = []
            while try row.step() {
                counts.append(
                    DeviceCount(
                        appID: row.string(0) ?? "", platform: row.string(1).flatMap(Platform.init(rawValue:)),
                        count: Int(row.int64(2))))
            }
            return counts
        }
    }

    static func deliveryLogCounts(since: Int64, in database: some SQLConnection) throws -> [String: Int] {
        try counts(deliveryLogCountsSQL, since: since, in: database)
    }

    static func lastOutcomeCounts(since: Int64, in database: some SQLConnection) throws -> [String: Int] {
        try counts(lastOutcomeCountsSQL, since: since, in: database)
    }

    static func lastProblems(limit: Int, in database: some SQLConnection) throws -> [AppProblem] {
        try database.withStatement(lastProblemsSQL) { row in
            try row.bind(limit, at: 1)
            var seen = Set<String>()
            var problems: [AppProblem] = []
            while try row.step() {
                let appID = row.string(0) ?? ""
                guard seen.insert(appID).inserted else { continue }
                problems.append(AppProblem(appID: appID, outcome: row.string(1) ?? "", at: row.int64(2)))
            }
            return problems
        }
    }

    private static func counts(_ sql: String, since: Int64, in database: some SQLConnection) throws -> [String: Int] {
        try database.withStatement(sql) { row in
            try row.bind(since, at: 1)
            var counts: [String: Int] = [:]
            while try row.step() { counts[row.string(0) ?? "", default: 0] += Int(row.int64(1)) }
            return counts
        }
    }
}
