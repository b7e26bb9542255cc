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

    static func token(teamID: String, keyID: String, in database: some SQLConnection) throws -> ArchivedProviderToken? {
        try database.withStatement(selectSQL) { row in
            try row.bind(teamID, at: 1)
            try row.bind(keyID, at: 2)
            guard try row.step() else { return nil }
            return ArchivedProviderToken(
                teamID: teamID, keyID: keyID, keyFingerprint: row.string(0) ?? "", token: row.string(1) ?? "",
                issuedAt: row.int64(2))
        }
    }

    static func save(_ token: ArchivedProviderToken, in database: some SQLConnection) throws {
        try database.withStatement(upsertSQL) {
            try $0.bind(token.teamID, at: 1)
            try $0.bind(token.keyID, at: 2)
            try $0.bind(token.keyFingerprint, at: 3)
            try $0.bind(token.token, at: 4)
            try $0.bind(token.issuedAt, at: 5)
            try $0.run()
        }
    }
}
