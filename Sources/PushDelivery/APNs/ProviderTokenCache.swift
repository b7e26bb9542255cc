import Logging
import PushCore
import PushCrypto

/// The process's one APNs provider token per signing key (team id + key id), shared by every
/// thread and connection. Apple refuses tokens older than an hour and answers
/// `TooManyProviderTokenUpdates` to keys renewed more often than every 20 minutes, so a token
/// is reused until `renewAfterSeconds` and only renewed early when APNs says it expired.
/// With an archive, tokens outlive the process and are shared: a restarted responder goes on
/// with the token its predecessor signed instead of counting as another renewal, and the
/// nodes of one database use one token per key (one renews, the others read it).
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

    /// The current token for `key`: the one in use while it is fresh; when it is due (or on
    /// first use), the archive's, if another node or an earlier run renewed it meanwhile;
    /// otherwise one signed now and offered to the archive, which keeps the first of several
    /// nodes' renewals (`renew`). Under the lock, so that concurrent callers of this process
    /// never mint two tokens for one key; the archive is read and written only when the token
    /// is due, once per renewal.
    public func token(for key: ProviderKey) throws(CryptoError) -> String {
        let now = clock.now()
        return try entries.withLock { (entries) throws(CryptoError) -> String in
            let name = KeyName(teamID: key.teamID, keyID: key.keyID)
            let renewalAge = max(policy.renewAfterSeconds, policy.minimumIntervalSeconds)
            if let entry = entries[name], entry.keyPEM == key.pem, now - entry.issuedAt < renewalAge {
                return entry.token
            }
            let kept = archived(key)
            if let kept, kept.keyFingerprint == key.fingerprint, now - Int(kept.issuedAt) < renewalAge {
                entries[name] = Entry(token: kept.token, issuedAt: Int(kept.issuedAt), keyPEM: key.pem)
                return kept.token
            }
            return try renew(key, now: now, replacing: kept, into: &entries[name])
        }
    }

    /// After APNs refused `rejected` as expired or invalid: a new token, or nil when none should
    /// be made (the refused token is younger than the floor). When another thread or node
    /// already replaced `rejected`, its replacement is returned: one renewal per key, however
    /// many requests carried the old token.
    public func renewedToken(for key: ProviderKey, replacing rejected: String) throws(CryptoError) -> String? {
        let now = clock.now()
        return try entries.withLock { (entries) throws(CryptoError) -> String? in
            let name = KeyName(teamID: key.teamID, keyID: key.keyID)
            let renewalAge = max(policy.renewAfterSeconds, policy.minimumIntervalSeconds)
            var current = entries[name].flatMap { $0.keyPEM == key.pem ? $0 : nil }
            if let current, current.token != rejected { return current.token }
            let kept = archived(key)
            if let kept, kept.keyFingerprint == key.fingerprint {
                if kept.token != rejected, now - Int(kept.issuedAt) < renewalAge {
                    entries[name] = Entry(token: kept.token, issuedAt: Int(kept.issuedAt), keyPEM: key.pem)
                    return kept.token
                }
                if current == nil, kept.token == rejected {
                    current = Entry(token: kept.token, issuedAt: Int(kept.issuedAt), keyPEM: key.pem)
                }
            }
            if let current, now - current.issuedAt < policy.forcedRenewalFloorSeconds { return nil }
            return try renew(key, now: now, replacing: kept, into: &entries[name])
        }
    }

    /// The archive's token for `key` (of whichever key signed it), nil when there is none or
    /// the archive cannot be read (then this process signs its own).
    private func archived(_ key: ProviderKey) -> ArchivedProviderToken? {
        guard let archive else { return nil }
        do {
            return try archive.archivedProviderToken(teamID: key.teamID, keyID: key.keyID)
        } catch {
            logger.warning("could not read the kept APNs provider token of key \(key.keyID): \(error)")
            return nil
        }
    }

    /// Signs a new token and offers it to the archive in place of `kept` (what was read just
    /// before). When another node replaced `kept` first, its token is used instead of the one
    /// just signed, which is then never sent: Apple sees one token per key, not one per node.
    private func renew(
        _ key: ProviderKey, now: Int, replacing kept: ArchivedProviderToken?, into entry: inout Entry?
    ) throws(CryptoError) -> String {
        let token = try Self.sign(key, now: now, into: &entry)
        guard let archive else { return token }
        do {
            let winner = try archive.replaceProviderToken(
                ArchivedProviderToken(
                    teamID: key.teamID, keyID: key.keyID, keyFingerprint: key.fingerprint, token: token,
                    issuedAt: Int64(now)),
                expecting: kept)
            if winner.token != token, winner.keyFingerprint == key.fingerprint, winner.token != kept?.token {
                entry = Entry(token: winner.token, issuedAt: Int(winner.issuedAt), keyPEM: key.pem)
                logger.debug("another node renewed the APNs provider token of key \(key.keyID) first: using its token")
                return winner.token
            }
        } catch {
            // Only costs sharing: this process goes on with its own token.
            logger.warning("could not keep the APNs provider token of key \(key.keyID): \(error)")
        }
        return token
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
