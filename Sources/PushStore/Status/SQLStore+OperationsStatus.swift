import PushCore

// OperationsStatusStore: the aggregates behind GET /metrics and GET /status.
extension SQLStore {
    public func outboxSummary(now: Int64) throws -> OutboxSummary {
        try read { try OutboxSummaryQuery.summary(now: now, in: $0) }
    }
}

extension SQLStore {
    public func deviceCounts() throws -> [DeviceCount] {
        try read { try StatusQueries.deviceCounts(in: $0) }
    }

    public func deliveryLogCounts(since: Int64) throws -> [String: Int] {
        try read { try StatusQueries.deliveryLogCounts(since: since, in: $0) }
    }

    public func lastOutcomeCounts(since: Int64) throws -> [String: Int] {
        try read { try StatusQueries.lastOutcomeCounts(since: since, in: $0) }
    }

    public func lastProblems(limit: Int) throws -> [AppProblem] {
        try read { try StatusQueries.lastProblems(limit: limit, in: $0) }
    }

    public func databaseBytes() throws -> Int64 {
        try withDatabase { try DatabaseSizeQuery.bytes(in: $0) }
    }

    public func recordDatabaseSize(bytes: Int64, now: Int64) throws {
        try write { try DatabaseSizeTable.record(bytes: bytes, now: now, in: $0) }
    }

    public func databaseSizeADayBefore(_ now: Int64) throws -> DatabaseSize.Sample? {
        try read { try DatabaseSizeTable.sample(aDayBefore: now, in: $0) }
    }
}

extension SQLStore {
    public func recordAppCheck(_ check: AppCheckRecord) throws {
        try write { try AppCheckTable.save(check, in: $0) }
    }

    public func appChecks() throws -> [AppCheckRecord] {
        try read { try AppCheckTable.all(in: $0) }
    }
}
