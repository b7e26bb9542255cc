import PushCore

/// The SQL of `database_sizes` (0021): one sample of the database's size an hour, shared by
/// every node and kept across restarts, for the growth over the last day.
enum DatabaseSizeTable {
    // The same on both engines. The first sample of an hour stays: nodes sampling in one hour
    // agree on one row, and a restarted serve's sample adds nothing to its hour.
    private static let insertSQL = """
        INSERT INTO database_sizes (taken_at, bytes) VALUES (?1, ?2) ON CONFLICT (taken_at) DO NOTHING
        """
    private static let pruneSQL = "DELETE FROM database_sizes WHERE taken_at < ?1"
    private static let dayBeforeSQL = """
        SELECT taken_at, bytes FROM database_sizes WHERE taken_at <= ?1 ORDER BY taken_at DESC LIMIT 1
        """

    /// Records `bytes` as the sample of `now`'s hour and deletes the samples past
    /// `DatabaseSize.keptSeconds`.
    static func record(bytes: Int64, now: Int64, in database: some SQLConnection) throws {
        try database.run(insertSQL, binding: DatabaseSize.sampleTime(now), bytes)
        try database.run(pruneSQL, binding: now - DatabaseSize.keptSeconds)
    }

    /// The newest sample at least a day before `now`.
    static func sample(aDayBefore now: Int64, in database: some SQLConnection) throws -> DatabaseSize.Sample? {
        try database.firstRow(dayBeforeSQL, binding: now - DatabaseSize.daySeconds) { row in
            DatabaseSize.Sample(takenAt: row.int64(0), bytes: row.int64(1))
        }
    }
}
