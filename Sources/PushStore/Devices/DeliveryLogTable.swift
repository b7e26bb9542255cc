import PushCore

/// The SQL of `delivery_log`: recent outcomes of the outbox, for operators, bounded.
enum DeliveryLogTable {
    private static let recentSQL = """
        SELECT at, app_id, token, outcome, detail, source FROM delivery_log ORDER BY id DESC LIMIT ?1
        """
    // PostgreSQL: a batch in one statement (see OutboxTable's completion); SQLite row by row.
    private static let appendManySQL = EngineSQL(
        sqlite: "INSERT INTO delivery_log (at, app_id, token, outcome, detail, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        postgresql: """
            INSERT INTO delivery_log (at, app_id, token, outcome, detail, source)
            SELECT ?1, v.app_id, v.token, v.outcome, v.detail, v.source
            FROM unnest(?2, ?3, ?4, ?5, ?6) WITH ORDINALITY AS v(app_id, token, outcome, detail, source, n)
            ORDER BY v.n
            """)
    // Rows are appended (ids growing) and trimmed from the oldest end, so "all but the newest
    // N" is a range of the primary key (with several nodes appending, ids may have gaps: then
    // a few less are kept). Deleted a batch per transaction, so that trimming a big fan-out's
    // entries never holds the write lock, or makes one huge transaction, for long.
    private static let trimSQL = """
        DELETE FROM delivery_log WHERE id IN (
            SELECT id FROM delivery_log WHERE id <= (SELECT max(id) FROM delivery_log) - ?1 ORDER BY id LIMIT ?2)
        """
    /// Entries one trimming transaction deletes at most.
    static let trimBatchSize = 5_000

    /// One entry per element of `entries`, in that order (tokens shortened here), in one statement.
    static func append<Connection: SQLConnection>(
        _ entries: [(appID: String, token: DeviceToken, kind: DeliveryLogEntry.Kind, detail: String?, source: String)],
        at: Int64, in database: Connection
    ) throws {
        guard !entries.isEmpty else { return }
        try database.withStatement(appendManySQL) { statement in
            if Connection.engine == .sqlite {
                // A fan-out's batch is one app and one source: what stays the same from one
                // entry to the next stays bound (a fan-out logs a row per push).
                try statement.bind(at, at: 1)
                var previous: (appID: String, kind: DeliveryLogEntry.Kind, source: String)?
                for entry in entries {
                    if previous?.appID != entry.appID { try statement.bind(entry.appID, at: 2) }
                    try statement.bind(entry.token.description, at: 3)
                    if previous?.kind != entry.kind { try statement.bind(entry.kind.rawValue, at: 4) }
                    try statement.bind(entry.detail, at: 5)
                    if previous?.source != entry.source { try statement.bind(entry.source, at: 6) }
                    try statement.run()
                    statement.rewind()
                    previous = (entry.appID, entry.kind, entry.source)
                }
                return
            }
            try statement.bind(at, at: 1)
            try statement.bindList(entries.map { Optional($0.appID) }, at: 2)
            try statement.bindList(entries.map { Optional($0.token.description) }, at: 3)
            try statement.bindList(entries.map { Optional($0.kind.rawValue) }, at: 4)
            try statement.bindList(entries.map(\.detail), at: 5)
            try statement.bindList(entries.map { Optional($0.source) }, at: 6)
            try statement.run()
        }
    }

    static func recent(limit: Int, in database: some SQLConnection) throws -> [DeliveryLogEntry] {
        try database.rows(recentSQL, binding: limit) { row in
            let raw = row.string(3)
            guard let kind = raw.flatMap(DeliveryLogEntry.Kind.init(rawValue:)) else {
                throw StoredValueError(
                    table: "delivery_log", column: "outcome", value: raw ?? "NULL", rowKey: "at \(row.int64(0))")
            }
            return DeliveryLogEntry(
                at: row.int64(0), appID: row.string(1) ?? "", token: row.string(2) ?? "", kind: kind,
                detail: row.string(4), source: row.string(5))
        }
    }

    /// Deletes up to `trimBatchSize` of the entries beyond the newest `keeping`, oldest first;
    /// returns how many went (fewer than `trimBatchSize`: done).
    static func trimBatch(keeping: Int, in database: some SQLConnection) throws -> Int {
        try database.run(trimSQL, binding: max(keeping, 0), trimBatchSize)
    }
}
