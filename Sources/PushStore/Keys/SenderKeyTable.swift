import PushCore

/// The SQL of `api_keys`: sender keys as digests with their scopes, revoked ones kept for
/// the record.
enum SenderKeyTable {
    private static let anyValidSQL = "SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL)"
    private static let anyOperatorSQL =
        "SELECT EXISTS (SELECT 1 FROM api_keys WHERE revoked_at IS NULL AND is_operator <> 0)"
    private static let byDigestSQL = """
        SELECT name, created_at, revoked_at, app_scope, dialect_scope, is_operator,
            CASE WHEN beams_secret IS NULL THEN 0 ELSE 1 END
        FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL
        """
    private static let existsSQL = "SELECT EXISTS (SELECT 1 FROM api_keys WHERE name = ?)"
    private static let insertSQL = """
        INSERT INTO api_keys (name, key_hash, created_at, app_scope, dialect_scope, is_operator, beams_secret)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    private static let allSQL = """
        SELECT name, created_at, revoked_at, app_scope, dialect_scope, is_operator,
            CASE WHEN beams_secret IS NULL THEN 0 ELSE 1 END
        FROM api_keys ORDER BY name
        """
    private static let secretsSQL = """
        SELECT name, created_at, revoked_at, app_scope, dialect_scope, is_operator, 1, beams_secret
        FROM api_keys WHERE revoked_at IS NULL AND beams_secret IS NOT NULL ORDER BY name
        """
    private static let revokeSQL = "UPDATE api_keys SET revoked_at = ?2 WHERE name = ?1 AND revoked_at IS NULL"

    static func hasValidKeys(in database: some SQLConnection) throws -> Bool {
        try database.firstRow(anyValidSQL) { row in row.int64(0) != 0 } == true
    }

    static func hasOperatorKeys(in database: some SQLConnection) throws -> Bool {
        try database.firstRow(anyOperatorSQL) { row in row.int64(0) != 0 } == true
    }

    static func key(digest: String, in database: some SQLConnection) throws -> SenderKey? {
        try database.firstRow(byDigestSQL, binding: digest) { row in try key(row) }
    }

    static func exists(name: String, in database: some SQLConnection) throws -> Bool {
        try database.firstRow(existsSQL, binding: name) { row in row.int64(0) != 0 } == true
    }

    static func insert(
        name: String, digest: String, scope: SenderScope, secret: String?, now: Int64,
        in database: some SQLConnection
    ) throws {
        try database.run(
            insertSQL, binding: name, digest, now, scope.apps.map { ScopeList.text($0.map(\.rawValue)) },
            scope.dialects.map { ScopeList.text($0.map(\.rawValue)) }, Int64(scope.isOperator ? 1 : 0), secret)
    }

    static func all(in database: some SQLConnection) throws -> [SenderKey] {
        try database.rows(allSQL) { row in try key(row) }
    }

    static func secrets(in database: some SQLConnection) throws -> [BeamsTokenSecret] {
        try database.rows(secretsSQL) { row in BeamsTokenSecret(key: try key(row), secret: row.string(7) ?? "") }
    }

    static func revoke(name: String, now: Int64, in database: some SQLConnection) throws -> Bool {
        try database.run(revokeSQL, binding: name, now) > 0
    }

    /// A row of (name, created_at, revoked_at, app_scope, dialect_scope, is_operator, has a
    /// Beams secret). A
    /// stored name that is no longer an app id or dialect fails loudly: a scope read wrong
    /// could widen or narrow what a key reaches.
    private static func key(_ row: some SQLRow) throws -> SenderKey {
        let name = row.string(0) ?? ""
        var apps: Set<AppID>?
        if let text = row.string(3) {
            apps = Set(
                try ScopeList.items(text).map { item in
                    guard let app = AppID(item) else {
                        throw StoredValueError(table: "api_keys", column: "app_scope", value: item, rowKey: name)
                    }
                    return app
                })
        }
        var dialects: Set<SenderDialect>?
        if let text = row.string(4) {
            dialects = Set(
                try ScopeList.items(text).map { item in
                    guard let dialect = SenderDialect(rawValue: item) else {
                        throw StoredValueError(table: "api_keys", column: "dialect_scope", value: item, rowKey: name)
                    }
                    return dialect
                })
        }
        return SenderKey(
            name: name, createdAt: row.int64(1), revokedAt: row.optionalInt64(2),
            scope: SenderScope(apps: apps, dialects: dialects, isOperator: row.int64(5) != 0),
            verifiesBeamsTokens: row.int64(6) != 0)
    }
}

/// How a scope's list is kept in one column: sorted names separated by single spaces
/// (neither app ids nor dialect names hold a space).
enum ScopeList {
    static func text(_ items: [String]) -> String {
        items.sorted().joined(separator: " ")
    }

    static func items(_ text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }
}
