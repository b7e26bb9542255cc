import PushCore

/// The provider authentication token APNs takes in `authorization: bearer …`: an ES256 JWT
/// naming the key (`kid`) and the team (`iss`). Apple refuses tokens older than an hour and
/// ones renewed more often than every 20 minutes, so callers cache what this returns.
/// (developer.apple.com: "Establishing a token-based connection to APNs".)
public enum APNsProviderToken {
    /// `issuedAt` is seconds since 1970 (`iat`).
    public static func sign(keyID: String, teamID: String, issuedAt: Int, key: APNsSigningKey) throws(CryptoError)
        -> String
    {
        try JWT.sign(
            header: ["kid": .string(keyID)],
            claims: ["iss": .string(teamID), "iat": .number(Double(issuedAt))],
            using: key)
    }
}
