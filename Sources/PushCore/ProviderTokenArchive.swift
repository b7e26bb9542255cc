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

/// Where the provider-token cache keeps its tokens across restarts.
public protocol ProviderTokenArchive: Sendable {
    func archivedProviderToken(teamID: String, keyID: String) throws -> ArchivedProviderToken?
    /// Replaces the key's token.
    func archiveProviderToken(_ token: ArchivedProviderToken) throws
}
