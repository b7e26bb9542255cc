import PushCore

/// The Token Reporter reports this process stored lately, by a digest of the account and its
/// tokens: a phone reports the same tokens again and again, and such a report creates nothing,
/// so it need not touch the new-device quota nor read the store first. Only a report this
/// process has not stored (a new account, a new token, or the first report of an account
/// since `serve` started) is looked at more closely.
///
/// Bounded: two generations of at most `generationSize` digests (8 bytes each); when the
/// newer fills, the older is dropped. A digest is remembered only once its report was stored.
///
/// One SipHash of the process's random seed, 64 bits: among 500,000 reports two new ones
/// collide with a chance of about 1 in 10^8, and a caller cannot aim for a collision without
/// the seed (one would let a new report go uncounted, nothing more). Token bytes are hashed
/// as one buffer: per element, as `[UInt8]`'s own `hash(into:)` does, each byte is a call of
/// its own.
public final class StoredReports: Sendable {
    private let generations = Locked<(newer: Set<Int>, older: Set<Int>)>(([], []))
    public let generationSize: Int

    public init(generationSize: Int = 250_000) {
        self.generationSize = max(1, generationSize)
    }

    /// The digest of what a report stores: its account and each channel's app and token.
    /// The username and the token's spelling are left out: changing them creates no row.
    static func digest(selector: String, tokens: [ChannelToken]) -> Int {
        var hasher = Hasher()
        hasher.combine(selector)
        for token in tokens {
            hasher.combine(token.channel.rawValue)
            hasher.combine(token.appID.rawValue)
            token.token.bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
        return hasher.finalize()
    }

    func contains(_ digest: Int) -> Bool {
        generations.withLock { $0.newer.contains(digest) || $0.older.contains(digest) }
    }

    func insert(_ digest: Int) {
        generations.withLock { sets in
            if sets.newer.count >= generationSize { sets = (newer: [], older: sets.newer) }
            sets.newer.insert(digest)
        }
    }
}
