import PushCore

// ProviderTokenArchive: APNs provider tokens kept across restarts.
extension SQLStore {
    public func archivedProviderToken(teamID: String, keyID: String) throws -> ArchivedProviderToken? {
        try withDatabase { try ProviderTokenTable.token(teamID: teamID, keyID: keyID, in: $0) }
    }

    public func archiveProviderToken(_ token: ArchivedProviderToken) throws {
        try write { try ProviderTokenTable.save(token, in: $0) }
    }

    public func replaceProviderToken(_ token: ArchivedProviderToken, expecting expected: ArchivedProviderToken?) throws
        -> ArchivedProviderToken
    {
        try write { database in
            try ProviderTokenTable.replace(token, expecting: expected, in: database)
            return try ProviderTokenTable.token(teamID: token.teamID, keyID: token.keyID, in: database) ?? token
        }
    }
}
