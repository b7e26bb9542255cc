/// An APNs provider token as kept between runs.
public struct ArchivedProviderToken: Sendable, Equatable {
    public var teamID: String
    public var keyID: String
    /// SHA-256 (hex) of the signing key's PEM: a token of a replaced key is not reused.
    public var keyFingerprint: String
    public var token: String
    /// Unix seconds, the token's `iat`.
    public var issuedAt: Int64

    public init(teamID: String, keyID: String, keyFingerprint: String, token: String, issuedAt: Int64) {
        self.teamID = teamID
        self.keyID = keyID
        self.keyFingerprint = keyFingerprint
        self.token = token
        self.issuedAt = issuedAt
    }
}

/// Where the provider-token cache keeps its tokens across restarts, and shares them between
/// the nodes of one database: every node uses the token the archive holds for a key.
public protocol ProviderTokenArchive: Sendable {
    func archivedProviderToken(teamID: String, keyID: String) throws -> ArchivedProviderToken?
    /// Replaces the key's token, whatever it was.
    func archiveProviderToken(_ token: ArchivedProviderToken) throws
    /// Replaces the key's token with `token` only if the archive still holds `expected` (what
    /// the caller read before renewing; nil: no token): of several nodes renewing one key at
    /// once, the first wins. Returns the key's token afterwards: `token`, or the winner's,
    /// which the caller then uses instead of its own.
    func replaceProviderToken(_ token: ArchivedProviderToken, expecting expected: ArchivedProviderToken?) throws
        -> ArchivedProviderToken
}
