import PushCore

/// The SQL of `api_keys`: sender keys as digests, revoked ones kept for the record.
enum SenderKeyTable {
    private static let anyValidSQL = "SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL)"
    private static let nameByDigestSQL = "SELECT name FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL"
    private static let existsSQL = "SELECT EXISTS (SELECT 1 FROM api_keys WHERE name = ?)"
    private static let insertSQL = "INSERT INTO api_keys (name, key_hash, created_at) VALUES (?, ?, ?)"
    private static let allSQL = "SELECT name, created_at, revoked_at FROM api_keys ORDER BY name"
    private static let revokeSQL = "UPDATE api_keys SET revoked_at = ?2 WHERE name = ?1 AND revoked_at IS NULL"

    static func hasValidKeys(in database: some SQLConnection) throws -> Bool {
        try database.withStatement(anyValidSQL) { row in
            _ = try row.step()
            return row.int64(0) != 0
        }
    }

    static func name(digest: String, in database: some SQLConnection) throws -> String? {
        try database.withStatement(nameByDigestSQL) { row in
            try row.bind(digest, at: 1)
            return try row.step() ? row.string(0) : nil
        }
    }

    static func exists(name: String, in database: some SQLConnection) throws -> Bool {
        try database.withStatement(existsSQL) { row in
            try row.bind(name, at: 1)
            _ = try row.step()
            return row.int64(0) != 0
        }
    }

    static func insert(name: String, digest: String, now: Int64, in database: some SQLConnection) throws {
        try database.withStatement(insertSQL) {
            try $0.bind(name, at: 1)
            try $0.bind(digest, at: 2)
            try $0.bind(now, at: 3)
            try $0.run()
        }
    }

    static func all(in database: some SQLConnection) throws -> [SenderKey] {
        try database.withStatement(allSQL) { row in
            var keys: [SenderKey] = []
            while try row.step() {
                keys.append(
                    SenderKey(name: row.string(0) ?? "", createdAt: row.int64(1), revokedAt: row.optionalInt64(2)))
            }
            return keys
        }
    }

    static func revoke(name: String, now: Int64, in database: some SQLConnection) throws -> Bool {
        try database.withStatement(revokeSQL) {
            try $0.bind(name, at: 1)
            try $0.bind(now, at: 2)
            try $0.run()
        }
        return database.changes > 0
    }
}
