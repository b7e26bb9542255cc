import PushCore

// OperationsStatusStore: the aggregates behind GET /metrics and GET /status.
extension SQLStore {
    public func outboxSummary(now: Int64) throws -> OutboxSummary {
        try read { try OutboxSummaryQuery.summary(now: now, in: $0) }
    }
}
