import PushCore

// HousekeepingStore: removing what the retention lets go, a batch per transaction.
extension SQLStore {
    public func claimHousekeepingRun(now: Int64, interval: Int64) throws -> Bool {
        try write { try HousekeepingTable.claim(now: now, interval: interval, in: $0) }
    }

    public func removeExpired(_ policy: RetentionPolicy, now: Int64, limit: Int) throws -> HousekeepingCounts {
        // One short transaction: the writer (SQLite) or the rows (PostgreSQL) are held only
        // for a batch, so reports go on between batches.
        // A device's time is exact to the day (DeviceTable.timePrecision): what it last
        // reported in a day can be that day's last second, so the day must be past.
        try write { database in
            let unregistered = try HousekeepingTable.deleteUnregisteredDevices(
                before: DeviceTable.retentionCutoff(now: now, seconds: policy.unregisteredAppSeconds), limit: limit,
                in: database)
            let devices = try HousekeepingTable.deleteDevices(
                before: DeviceTable.retentionCutoff(now: now, seconds: policy.deviceSeconds), limit: limit, in: database)
            let deadLetters = try HousekeepingTable.deleteDeadLetters(
                before: (now - policy.deadLetterSeconds) * 1000, limit: limit, in: database)
            return HousekeepingCounts(devices: devices, unregisteredAppDevices: unregistered, deadLetters: deadLetters)
        }
    }

    public func recordHousekeepingRun(_ removed: HousekeepingCounts, at now: Int64) throws {
        try write { try HousekeepingTable.record(removed, at: now, in: $0) }
    }

    public func housekeepingReport() throws -> HousekeepingReport {
        try withDatabase { try HousekeepingTable.report(in: $0) }
    }
}
