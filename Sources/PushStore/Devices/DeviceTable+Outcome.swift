import PushCore

/// The SQL of what deliveries write back to `devices`.
extension DeviceTable {
    private static let recordOutcomeSQL = "UPDATE devices SET last_outcome = ?2, last_outcome_at = ?3 WHERE id = ?1"
    // updated_at stays: it means "last reported by the client", which pruning compares with
    // APNs' 410 timestamp.
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

    static func setSandbox(_ sandbox: Bool, deviceID: Int64, in database: some SQLConnection) throws {
        try database.withStatement(setSandboxSQL) {
            try $0.bind(deviceID, at: 1)
            try $0.bind(sandbox, at: 2)
            try $0.run()
        }
    }
}
