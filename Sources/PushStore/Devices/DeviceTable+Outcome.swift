import PushCore

/// The SQL of what deliveries write back to `devices`.
extension DeviceTable {
    private static let recordOutcomeSQL = "UPDATE devices SET last_outcome = ?2, last_outcome_at = ?3 WHERE id = ?1"
    // updated_at stays: it means "last reported by the client", which pruning compares with
    // APNs' 410 timestamp.
    // PostgreSQL: a batch in one statement (see OutboxTable's completion, also for why the
    // list is named twice: without `= ANY`, a connection's first plans scanned every device
    // for each batch); SQLite row by row.
    private static let recordOutcomesSQL = """
        UPDATE devices AS d SET last_outcome = v.summary, last_outcome_at = ?3
        FROM unnest(?1, ?2) AS v(id, summary)
        WHERE d.id = v.id AND d.id = ANY(?1)
        """
    private static let setSandboxSQL = "UPDATE devices SET sandbox = ?2 WHERE id = ?1"

    /// A whole upstream error body is not for `last_outcome`: its first 200 characters.
    private static func bounded(_ summary: String) -> String {
        // Counting characters walks the text; a summary of up to 200 bytes is short enough.
        summary.utf8.count <= 200 ? summary : String(summary.prefix(200))
    }

    /// Each device's last outcome at `now` (unix seconds): on PostgreSQL in one statement for
    /// the batch, on SQLite a statement per device; a device listed twice keeps its last summary.
    static func recordOutcomes<Connection: SQLConnection>(
        _ outcomes: [(deviceID: Int64, summary: String)], now: Int64, in database: Connection
    ) throws {
        guard Connection.engine == .postgresql else {
            guard !outcomes.isEmpty else { return }
            // One statement for the batch, run per device in order; the summary ("delivered"
            // for nearly every push of a fan-out) is bound again only when it changes.
            try database.withStatement(recordOutcomeSQL) { statement in
                try statement.bind(now, at: 3)
                var previous: String?
                for (deviceID, summary) in outcomes {
                    try statement.bind(deviceID, at: 1)
                    if summary != previous { try statement.bind(bounded(summary), at: 2) }
                    try statement.run()
                    statement.rewind()
                    previous = summary
                }
            }
            return
        }
        var last: [Int64: String] = [:]
        var order: [Int64] = []
        for (deviceID, summary) in outcomes {
            if last.updateValue(bounded(summary), forKey: deviceID) == nil { order.append(deviceID) }
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
