import PushCore

/// The outbox's counts by state in one pass over the table (it holds what waits and the
/// dead letters, not the delivered history), for the operator's pages.
enum OutboxSummaryQuery {
    // The same on both engines.
    private static let sql = """
        SELECT
            COALESCE(SUM(CASE WHEN state = 'pending' AND attempts = 0 THEN 1 ELSE 0 END), 0),
            COALESCE(SUM(CASE WHEN state = 'pending' AND attempts > 0 THEN 1 ELSE 0 END), 0),
            COALESCE(SUM(CASE WHEN state = 'dead' THEN 1 ELSE 0 END), 0),
            COALESCE(SUM(CASE WHEN state = 'pending' AND next_attempt_at <= ?1 THEN 1 ELSE 0 END), 0),
            MIN(CASE WHEN state = 'pending' AND next_attempt_at <= ?1 THEN next_attempt_at END)
        FROM outbox
        """

    static func summary(now: Int64, in database: some SQLConnection) throws -> OutboxSummary {
        try database.withStatement(sql) { row in
            try row.bind(now, at: 1)
            guard try row.step() else {
                return OutboxSummary(queued: 0, retrying: 0, dead: 0, due: 0, oldestDueAt: nil)
            }
            return OutboxSummary(
                queued: Int(row.int64(0)), retrying: Int(row.int64(1)), dead: Int(row.int64(2)),
                due: Int(row.int64(3)), oldestDueAt: row.optionalInt64(4))
        }
    }
}
