import PushCore
import PushCrypto

/// VAPID `Authorization` values per key, subject and audience (push service origin), each
/// reused until it nears its `exp`: signing per push would cost an ECDSA signature each, and
/// push services may rate-limit by token. Tokens live 12 hours (RFC 8292 allows 24; Apple
/// refuses more than one day, so half leaves room for clocks that disagree) and are renewed
/// in their last hour.
public final class VAPIDTokenCache: Sendable {
    public static let lifetime = 12 * 60 * 60
    public static let renewalMargin = 60 * 60

    private struct Key: Hashable {
        var publicKey: String
        var subject: String
        var audience: String
    }

    private struct Entry {
        var authorization: String
        var expiresAt: Int
    }

    private let entries = Locked<[Key: Entry]>([:])
    private let clock: UnixClock
    /// Beyond this many audiences × keys the cache starts over (keys replaced linger otherwise).
    private let capacity = 4096

    public init(clock: UnixClock = .system) {
        self.clock = clock
    }

    /// `vapid t=…, k=…` for `audience`, signed now or taken from the cache.
    public func authorization(key: VAPIDKey, subject: String, audience: String) throws(CryptoError) -> String {
        let now = clock.now()
        let cacheKey = Key(publicKey: try key.publicKeyBase64URL(), subject: subject, audience: audience)
        if let entry = entries.withLock({ $0[cacheKey] }), entry.expiresAt - Self.renewalMargin > now {
            return entry.authorization
        }
        let expiresAt = now + Self.lifetime
        let token = try VAPIDToken.sign(audience: audience, subject: subject, expiresAt: expiresAt, key: key)
        let authorization = try VAPIDToken.authorization(token: token, key: key)
        entries.withLock {
            if $0.count >= capacity { $0.removeAll() }
            $0[cacheKey] = Entry(authorization: authorization, expiresAt: expiresAt)
        }
        return authorization
    }

    /// Forgets the value for `audience`, so the next push signs a new token.
    public func invalidate(key: VAPIDKey, subject: String, audience: String) {
        guard let publicKey = try? key.publicKeyBase64URL() else { return }
        let cacheKey = Key(publicKey: publicKey, subject: subject, audience: audience)
        _ = entries.withLock { $0.removeValue(forKey: cacheKey) }
    }
}
