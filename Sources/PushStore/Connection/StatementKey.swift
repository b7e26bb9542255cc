/// A statement cache's key: the SQL text, hashed by its length and its last bytes only.
/// Hashing the whole text (a few hundred bytes) on every lookup cost more than the rest of
/// finding the statement; statements that hash alike are still told apart by their text, and
/// the same text (one string constant) compares as equal at once.
struct StatementKey: Hashable {
    let sql: String

    static func == (lhs: StatementKey, rhs: StatementKey) -> Bool {
        lhs.sql == rhs.sql
    }

    func hash(into hasher: inout Hasher) {
        var sql = sql
        sql.withUTF8 { bytes in
            hasher.combine(bytes.count)
            let tail = UnsafeBufferPointer(rebasing: bytes[max(0, bytes.count - 24)...])
            hasher.combine(bytes: UnsafeRawBufferPointer(tail))
        }
    }
}
