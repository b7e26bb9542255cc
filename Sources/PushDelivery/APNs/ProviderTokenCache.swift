import Logging
import PushCore
import PushCrypto

/// The process's one APNs provider token per signing key (team id + key id), shared by every
/// thread and connection. Apple refuses tokens older than an hour and answers
/// `TooManyProviderTokenUpdates` to keys renewed more often than every 20 minutes, so a token
/// is reused until `renewAfterSeconds` and only renewed early when APNs says it expired.
/// With an archive, tokens outlive the process: a restarted responder goes on with the token
/// its predecessor signed instead of counting as another renewal.
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
    private let archive: (any ProviderTokenArchive)?
    private let logger: Logger

    public init(
        clock: UnixClock = .system, policy: Policy = Policy(), archive: (any ProviderTokenArchive)? = nil,
        logger: Logger = Logger(label: "pushgate.delivery")
    ) {
        self.clock = clock
        self.policy = policy
        self.archive = archive
        self.logger = logger
    }

    /// The current token for `key`, signed now if there is none or it is due for renewal.
    /// Signing happens under the lock, so concurrent callers never mint two tokens for one key.
    public func token(for key: ProviderKey) throws(CryptoError) -> String {
        let now = clock.now()
        let (token, signed) = try entries.withLock { (entries) throws(CryptoError) -> (String, Bool) in
            let name = KeyName(teamID: key.teamID, keyID: key.keyID)
            let renewalAge = max(policy.renewAfterSeconds, policy.minimumIntervalSeconds)
            loadArchived(name, key: key, into: &entries)
            if let entry = entries[name], entry.keyPEM == key.pem, now - entry.issuedAt < renewalAge {
                return (entry.token, false)
            }
            return (try Self.sign(key, now: now, into: &entries[name]), true)
        }
        if signed { save(token, key: key, issuedAt: now) }
        return token
    }

    /// After APNs refused `rejected` as expired or invalid: a new token, or nil when none should
    /// be made (the refused token is younger than the floor). When another thread already
    /// replaced `rejected`, its replacement is returned: one renewal per key, however many
    /// requests carried the old token.
    public func renewedToken(for key: ProviderKey, replacing rejected: String) throws(CryptoError) -> String? {
        let now = clock.now()
        let (token, signed) = try entries.withLock { (entries) throws(CryptoError) -> (String?, Bool) in
            let name = KeyName(teamID: key.teamID, keyID: key.keyID)
            loadArchived(name, key: key, into: &entries)
            if let entry = entries[name], entry.keyPEM == key.pem {
                if entry.token != rejected { return (entry.token, false) }
                if now - entry.issuedAt < policy.forcedRenewalFloorSeconds { return (nil, false) }
            }
            return (try Self.sign(key, now: now, into: &entries[name]), true)
        }
        if signed, let token { save(token, key: key, issuedAt: now) }
        return token
    }

    /// The first use of a key in this process looks for the token an earlier run kept. Under
    /// the lock, so that threads starting together do not sign one each.
    private func loadArchived(_ name: KeyName, key: ProviderKey, into entries: inout [KeyName: Entry]) {
        guard entries[name] == nil, let archive else { return }
        do {
            guard let kept = try archive.archivedProviderToken(teamID: key.teamID, keyID: key.keyID),
                kept.keyFingerprint == key.fingerprint
            else { return }
            entries[name] = Entry(token: kept.token, issuedAt: Int(kept.issuedAt), keyPEM: key.pem)
        } catch {
            logger.warning("could not read the kept APNs provider token of key \(key.keyID): \(error)")
        }
    }

    /// Outside the lock: a store write may wait for another transaction. Losing it only costs
    /// the next run a fresh token.
    private func save(_ token: String, key: ProviderKey, issuedAt: Int) {
        guard let archive else { return }
        do {
            try archive.archiveProviderToken(
                ArchivedProviderToken(
                    teamID: key.teamID, keyID: key.keyID, keyFingerprint: key.fingerprint, token: token,
                    issuedAt: Int64(issuedAt)))
        } catch {
            logger.warning("could not keep the APNs provider token of key \(key.keyID): \(error)")
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
    /// SHA-256 (hex) of `pem`: what a kept token records of the key that signed it.
    public var fingerprint: String

    public init(teamID: String, keyID: String, pem: String) throws(CryptoError) {
        self.teamID = teamID
        self.keyID = keyID
        self.pem = pem
        signingKey = try APNsSigningKey(pem: pem)
        fingerprint = SHA256.hexDigest(of: pem)
    }
}
