import PushCore

// ProviderTokenArchive: APNs provider tokens kept across restarts.
extension SQLStore {
    public func archivedProviderToken(teamID: String, keyID: String) throws -> ArchivedProviderToken? {
        try withDatabase { try ProviderTokenTable.token(teamID: teamID, keyID: keyID, in: $0) }
    }

    public func archiveProviderToken(_ token: ArchivedProviderToken) throws {
        try write { try ProviderTokenTable.save(token, in: $0) }
    }
}
