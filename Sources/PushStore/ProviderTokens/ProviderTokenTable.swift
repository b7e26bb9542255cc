import PushCore

/// The SQL of `apns_provider_tokens`.
enum ProviderTokenTable {
    private static let selectSQL = """
        SELECT key_fingerprint, token, issued_at FROM apns_provider_tokens WHERE team_id = ?1 AND key_id = ?2
        """
    private static let upsertSQL = """
        INSERT INTO apns_provider_tokens (team_id, key_id, key_fingerprint, token, issued_at)
        VALUES (?1, ?2, ?3, ?4, ?5)
        ON CONFLICT (team_id, key_id) DO UPDATE SET
            key_fingerprint = excluded.key_fingerprint, token = excluded.token, issued_at = excluded.issued_at
        """

    // Compare-and-set: the existing row is replaced only while it still holds the token the
    // renewing node read (?6; NULL matches nothing, so then only a first insert goes in). Two
    // nodes that read the same stale token and renew at once: the second finds the first's
    // token in place and updates nothing (on PostgreSQL it waits for the first's row lock,
    // or runs again after a serialization failure, and then finds it).
    private static let replaceSQL =
        upsertSQL + """

            WHERE apns_provider_tokens.token = ?6
            """

    static func token(teamID: String, keyID: String, in database: some SQLConnection) throws -> ArchivedProviderToken? {
        try database.firstRow(selectSQL, binding: teamID, keyID) { row in
            ArchivedProviderToken(
                teamID: teamID, keyID: keyID, keyFingerprint: row.string(0) ?? "", token: row.string(1) ?? "",
                issuedAt: row.int64(2))
        }
    }

    /// Stores `token` unless the row no longer holds `expected`'s token.
    static func replace(
        _ token: ArchivedProviderToken, expecting expected: ArchivedProviderToken?, in database: some SQLConnection
    ) throws {
        try database.run(
            replaceSQL, binding: token.teamID, token.keyID, token.keyFingerprint, token.token, token.issuedAt,
            expected?.token)
    }

    static func save(_ token: ArchivedProviderToken, in database: some SQLConnection) throws {
        try database.run(
            upsertSQL, binding: token.teamID, token.keyID, token.keyFingerprint, token.token, token.issuedAt)
    }
}
