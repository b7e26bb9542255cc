import PushCore

/// The SQL of what deliveries write back to `devices`.
extension DeviceTable {
    private static let recordOutcomeSQL = "UPDATE devices SET last_outcome = ?2, last_outcome_at = ?3 WHERE id = ?1"
    // updated_at stays: it means "last reported by the client", which pruning compares with
    // APNs' 410 timestamp.
    // PostgreSQL: a batch in one statement (see OutboxTable's completion); SQLite row by row.
    private static let recordOutcomesSQL = """
        UPDATE devices AS d SET last_outcome = v.summary, last_outcome_at = ?3
        FROM unnest(?1, ?2) AS v(id, summary)
        WHERE d.id = v.id
        """
    private static let setSandboxSQL = "UPDATE devices SET sandbox = ?2 WHERE id = ?1"

    static func recordOutcome(deviceID: Int64, summary: String, now: Int64, in database: some SQLConnection) throws {
        try database.withStatement(recordOutcomeSQL) {
            try $0.bind(deviceID, at: 1)
            // A whole upstream error body is not for this column: the first line, bounded.
            try $0.bind(String(summary.prefix(200)), at: 2)
            try $0.bind(now, at: 3)
            try $0.run()
        }
    }

    /// `recordOutcome` for a batch in one statement; a device listed twice keeps its last summary.
    static func recordOutcomes<Connection: SQLConnection>(
        _ outcomes: [(deviceID: Int64, summary: String)], now: Int64, in database: Connection
    ) throws {
        guard Connection.engine == .postgresql else {
            for (deviceID, summary) in outcomes {
                try recordOutcome(deviceID: deviceID, summary: summary, now: now, in: database)
            }
            return
        }
        var last: [Int64: String] = [:]
        var order: [Int64] = []
        for (deviceID, summary) in outcomes {
            if last.updateValue(String(summary.prefix(200)), forKey: deviceID) == nil { order.append(deviceID) }
        }
        guard !order.isEmpty else { return }
        try database.withStatement(recordOutcomesSQL) {
            try $0.bindList(order, at: 1)
            try $0.bindList(order.map { last[$0] }, at: 2)
            try $0.bind(now, at: 3)
            try $0.run()
        }
    }

    static func setSandbox(_ sandbox: Bool, deviceID: Int64, in database: some SQLConnection) throws {
        try database.withStatement(setSandboxSQL) {
            try $0.bind(deviceID, at: 1)
            try $0.bind(sandbox, at: 2)
            try $0.run()
        }
    }
}
