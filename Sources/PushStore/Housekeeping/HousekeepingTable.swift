import PushCore

/// The SQL of housekeeping: the `housekeeping` row (claim and counts) and the batched deletes
/// of what the retention lets go. Each delete picks at most a batch from an index range
/// (0010's indexes) and repeats the age test on the row it deletes: on PostgreSQL a report
/// that updated the row meanwhile makes the row fail it, and the device stays.
enum HousekeepingTable {
    // Taken only when the last claim is `interval` old: of two nodes at once, one updates
    // the row, the other finds it claimed (the row lock orders them).
    private static let claimSQL = """
        UPDATE housekeeping SET next_run_at = ?1 + ?2 WHERE id = 1 AND next_run_at <= ?1
        """
    private static let deleteUnregisteredSQL = """
        DELETE FROM devices
        WHERE id IN (
                SELECT id FROM devices WHERE platform IS NULL AND updated_at < ?1 ORDER BY updated_at LIMIT ?2)
            AND platform IS NULL AND updated_at < ?1
        """
    private static let deleteDevicesSQL = """
        DELETE FROM devices
        WHERE id IN (SELECT id FROM devices WHERE updated_at < ?1 ORDER BY updated_at LIMIT ?2)
            AND updated_at < ?1
        """
    // Milliseconds, as every outbox time.
    private static let deleteDeadLettersSQL = """
        DELETE FROM outbox
        WHERE id IN (
                SELECT id FROM outbox WHERE state = 'dead' AND next_attempt_at < ?1 ORDER BY next_attempt_at LIMIT ?2)
            AND state = 'dead'
        """
    private static let recordSQL = """
        UPDATE housekeeping SET last_run_at = ?1,
            last_devices = ?2, last_unregistered = ?3, last_dead_letters = ?4,
            total_devices = total_devices + ?2, total_unregistered = total_unregistered + ?3,
            total_dead_letters = total_dead_letters + ?4
        WHERE id = 1
        """
    private static let reportSQL = """
        SELECT last_run_at, last_devices, last_unregistered, last_dead_letters,
            total_devices, total_unregistered, total_dead_letters
        FROM housekeeping WHERE id = 1
        """

    static func claim(now: Int64, interval: Int64, in database: some SQLConnection) throws -> Bool {
        try database.run(claimSQL, binding: now, interval) > 0
    }

    /// Devices of unregistered apps untouched since before `cutoff` (unix s), at most `limit`.
    static func deleteUnregisteredDevices(before cutoff: Int64, limit: Int, in database: some SQLConnection) throws -> Int {
        try delete(deleteUnregisteredSQL, before: cutoff, limit: limit, in: database)
    }

    /// Devices untouched since before `cutoff` (unix s), at most `limit`.
    static func deleteDevices(before cutoff: Int64, limit: Int, in database: some SQLConnection) throws -> Int {
        try delete(deleteDevicesSQL, before: cutoff, limit: limit, in: database)
    }

    /// Dead letters that died before `cutoff` (unix ms), at most `limit`.
    static func deleteDeadLetters(before cutoff: Int64, limit: Int, in database: some SQLConnection) throws -> Int {
        try delete(deleteDeadLettersSQL, before: cutoff, limit: limit, in: database)
    }

    private static func delete(_ sql: String, before cutoff: Int64, limit: Int, in database: some SQLConnection) throws
        -> Int
    {
        try database.run(sql, binding: cutoff, Int64(limit))
    }

    static func record(_ removed: HousekeepingCounts, at now: Int64, in database: some SQLConnection) throws {
        try database.run(
            recordSQL, binding: now, Int64(removed.devices), Int64(removed.unregisteredAppDevices),
            Int64(removed.deadLetters))
    }

    static func report(in database: some SQLConnection) throws -> HousekeepingReport {
        try database.withStatement(reportSQL) { row in
            guard try row.step() else {
                return HousekeepingReport(lastRunAt: nil, lastRun: HousekeepingCounts(), total: HousekeepingCounts())
            }
            func counts(from column: Int32) -> HousekeepingCounts {
                HousekeepingCounts(
                    devices: Int(row.int64(column)), unregisteredAppDevices: Int(row.int64(column + 1)),
                    deadLetters: Int(row.int64(column + 2)))
            }
            return HousekeepingReport(lastRunAt: row.optionalInt64(0), lastRun: counts(from: 1), total: counts(from: 4))
        }
    }
}
