import PushCore

/// The SQL of what deliveries write back about devices: their last outcome (`device_outcomes`)
/// and the sandbox an APNs answer proved.
extension DeviceTable {
    // An outcome is written only for a device that exists (the join): PostgreSQL's table has
    // no foreign key to refuse one for a device deleted meanwhile (migration 0016), and on
    // SQLite the foreign key would fail the whole batch instead of skipping that device.
    // A batch is one statement per engine (see OutboxTable's completion, also for why
    // PostgreSQL's list is named twice: without `= ANY`, a connection's first plans scanned
    // every device for each batch). SQLite's takes the devices of one summary as a JSON list
    // and runs once per distinct summary: a fan-out's batch is nearly all "delivered", and a
    // statement per device cost about four times as much per row. (`WHERE true` is SQLite's
    // rule for an upsert from a join.) PostgreSQL's rows are locked in device order: two nodes
    // delivering different publishes to the same devices would otherwise take the rows' locks
    // in their batches' orders and could deadlock (and run the batch again).
    private static let recordOutcomesSQL = EngineSQL(
        sqlite: """
            INSERT INTO device_outcomes (device_id, outcome, at)
            SELECT d.id, ?2, ?3 FROM json_each(?1) AS v JOIN devices AS d ON d.id = v.value WHERE true
            ON CONFLICT (device_id) DO UPDATE SET outcome = excluded.outcome, at = excluded.at
            """,
        postgresql: """
            INSERT INTO device_outcomes (device_id, outcome, at)
            SELECT d.id, v.summary, ?3 FROM unnest(?1, ?2) AS v(id, summary) JOIN devices AS d ON d.id = v.id
            WHERE d.id = ANY(?1)
            ORDER BY d.id
            ON CONFLICT (device_id) DO UPDATE SET outcome = excluded.outcome, at = excluded.at
            """)
    private static let setSandboxSQL = "UPDATE devices SET sandbox = ?2 WHERE id = ?1"

    /// A whole upstream error body is not for an outcome: its first 200 characters.
    private static func bounded(_ summary: String) -> String {
        // Counting characters walks the text; a summary of up to 200 bytes is short enough.
        summary.utf8.count <= 200 ? summary : String(summary.prefix(200))
    }

    /// Each device's last outcome at `now` (unix seconds), in one statement for the batch (on
    /// SQLite one per distinct summary); a device listed twice keeps its last summary.
    static func recordOutcomes<Connection: SQLConnection>(
        _ outcomes: [(deviceID: Int64, summary: String)], now: Int64, in database: Connection
    ) throws {
        var last: [Int64: String] = [:]
        var order: [Int64] = []
        for (deviceID, summary) in outcomes {
            if last.updateValue(bounded(summary), forKey: deviceID) == nil { order.append(deviceID) }
        }
        guard !order.isEmpty else { return }
        guard Connection.engine == .postgresql else {
            // Each device is in one group, with its last summary: the groups' order is free.
            try database.withStatement(recordOutcomesSQL) { statement in
                try statement.bind(now, at: 3)
                for (summary, devices) in Dictionary(grouping: last, by: \.value) {
                    try statement.bindList(devices.map(\.key), at: 1)
                    try statement.bind(summary, at: 2)
                    try statement.run()
                    statement.rewind()
                }
            }
            return
        }
        try database.withStatement(recordOutcomesSQL) {
            try $0.bindList(order, at: 1)
            try $0.bindList(order.map { last[$0] }, at: 2)
            try $0.bind(now, at: 3)
            try $0.run()
        }
    }

    static func setSandbox(_ sandbox: Bool, deviceID: Int64, in database: some SQLConnection) throws {
        try database.run(setSandboxSQL, binding: deviceID, sandbox)
    }
}
