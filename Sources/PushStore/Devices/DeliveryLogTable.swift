import PushCore

/// The SQL of `delivery_log`: recent outcomes of the outbox, for operators, bounded.
enum DeliveryLogTable {
    private static let insertSQL = """
        INSERT INTO delivery_log (at, app_id, token, outcome, detail, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
        """
    private static let recentSQL = """
        SELECT at, app_id, token, outcome, detail, source FROM delivery_log ORDER BY id DESC LIMIT ?1
        """
    // Rows are only ever appended (rowid = max + 1) and trimmed from the oldest end, so ids
    // are consecutive and "all but the newest N" is one range delete on the primary key.
    private static let trimSQL = """
        DELETE FROM delivery_log WHERE id <= (SELECT max(id) FROM delivery_log) - ?1
        """

    /// `token` is shortened here: the log never holds a whole token.
    static func append(
        at: Int64, appID: String, token: DeviceToken, kind: DeliveryLogEntry.Kind, detail: String?, source: String,
        in database: some SQLConnection
    ) throws {
        try database.withStatement(insertSQL) { statement in
            try statement.bind(at, at: 1)
            try statement.bind(appID, at: 2)
            try statement.bind(token.description, at: 3)
            try statement.bind(kind.rawValue, at: 4)
            try statement.bind(detail, at: 5)
            try statement.bind(source, at: 6)
            try statement.run()
        }
    }

    static func recent(limit: Int, in database: some SQLConnection) throws -> [DeliveryLogEntry] {
        try database.withStatement(recentSQL) { row in
            try row.bind(limit, at: 1)
            var entries: [DeliveryLogEntry] = []
            while try row.step() {
                let raw = row.string(3)
                guard let kind = raw.flatMap(DeliveryLogEntry.Kind.init(rawValue:)) else {
                    throw StoredValueError(
                        table: "delivery_log", column: "outcome", value: raw ?? "NULL", rowKey: "at \(row.int64(0))")
                }
                entries.append(
                    DeliveryLogEntry(
                        at: row.int64(0), appID: row.string(1) ?? "", token: row.string(2) ?? "", kind: kind,
                        detail: row.string(4), source: row.string(5)))
            }
            return entries
        }
    }

    /// Deletes all but the newest `keeping` entries; returns how many went.
    static func trim(keeping: Int, in database: some SQLConnection) throws -> Int {
        try database.withStatement(trimSQL) {
            try $0.bind(max(keeping, 0), at: 1)
            try $0.run()
        }
        return database.changes
    }
}
