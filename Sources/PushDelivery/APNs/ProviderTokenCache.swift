import PushCrypto

/// The process's one APNs provider token per signing key (team id + key id), shared by every
/// thread and connection. Apple refuses tokens older than an hour and answers
/// `TooManyProviderTokenUpdates` to keys renewed more often than every 20 minutes, so a token
/// is reused until `renewAfterSeconds` and only renewed early when APNs says it expired.
/// (developer.apple.com, "Establishing a token-based connection to APNs".)
public final class ProviderTokenCache: Sendable {
    /// When tokens are renewed.
    public struct Policy: Sendable {
        /// Age at which a token is replaced on its next use (Apple's limit is 60 minutes).
        public var renewAfterSeconds = 50 * 60
        /// Routine renewals never come closer together than this, whatever `renewAfterSeconds`
        /// says (Apple's `TooManyProviderTokenUpdates` limit).
        public var minimumIntervalSeconds = 20 * 60
        /// Age below which a renewal forced by `ExpiredProviderToken` is refused: a token that
        /// young was not expired, the clocks disagree, and renewing again would only add to
        /// Apple's count of updates.
        public var forcedRenewalFloorSeconds = 60

        public init(renewAfterSeconds: Int = 50 * 60, minimumIntervalSeconds: Int = 20 * 60, forcedRenewalFloorSeconds: Int = 60) {
            self.renewAfterSeconds = renewAfterSeconds
            self.minimumIntervalSeconds = minimumIntervalSeconds
            self.forcedRenewalFloorSeconds = forcedRenewalFloorSeconds
        }
    }

    private struct Entry {
        var token: String
        var issuedAt: Int
        /// The key that signed it: an app replaced with another key under the same id re-signs.
        var keyPEM: String
    }

    private struct KeyName: Hashable {
        var teamID: String
        var keyID: String
    }

    private let clock: UnixClock
    private let policy: Policy
    private let entries = Locked<[KeyName: Entry]>([:])

    public init(clock: UnixClock = .system, policy: Policy = Policy()) {
        self.clock = clock
        self.policy = policy
    }

    /// The current token for `key`, signed now if there is none or it is due for renewal.
    /// Signing happens under the lock, so concurrent callers never mint two tokens for one key.
    public func token(for key: ProviderKey) throws(CryptoError) -> String {
        let now = clock.now()
        return try entries.withLock { (entries) throws(CryptoError) -> String in
            let name = KeyName(teamID: key.teamID, keyID: key.keyID)
            let renewalAge = max(policy.renewAfterSeconds, policy.minimumIntervalSeconds)
            if let entry = entries[name], entry.keyPEM == key.pem, now - entry.issuedAt < renewalAge {
                return entry.token
            }
            return try Self.sign(key, now: now, into: &entries[name])
        }
    }

    /// After APNs refused `rejected` as expired or invalid: a new token, or nil when none should
    /// be made (the refused token is younger than the floor). When another thread already
    /// replaced `rejected`, its replacement is returned: one renewal per key, however many
    /// requests carried the old token.
    public func renewedToken(for key: ProviderKey, replacing rejected: String) throws(CryptoError) -> String? {
        let now = clock.now()
        return try entries.withLock { (entries) throws(CryptoError) -> String? in
            let name = KeyName(teamID: key.teamID, keyID: key.keyID)
            if let entry = entries[name], entry.keyPEM == key.pem {
                if entry.token != rejected { return entry.token }
                if now - entry.issuedAt < policy.forcedRenewalFloorSeconds { return nil }
            }
            return try Self.sign(key, now: now, into: &entries[name])
        }
    }

    private static func sign(_ key: ProviderKey, now: Int, into entry: inout Entry?) throws(CryptoError) -> String {
        let token = try APNsProviderToken.sign(keyID: key.keyID, teamID: key.teamID, issuedAt: now, key: key.signingKey)
        entry = Entry(token: token, issuedAt: now, keyPEM: key.pem)
        return token
    }
}

/// An APNs token-auth key as an app registered it: the ids Apple knows it by, and the parsed key.
public struct ProviderKey: Sendable {
    public var teamID: String
    public var keyID: String
    /// The .p8 text, which tells one key from another registered under the same ids.
    public var pem: String
    public var signingKey: APNsSigningKey

    public init(teamID: String, keyID: String, pem: String) throws(CryptoError) {
        self.teamID = teamID
        self.keyID = keyID
        self.pem = pem
        signingKey = try APNsSigningKey(pem: pem)
    }
}
