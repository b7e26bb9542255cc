/// A 128-bit digest of what a caller may choose (a user name), keyed by the
/// process's random hashing seed: two SipHash values, so that a key of a table costs 16 bytes
/// whatever it digests, and no caller can make two inputs collide without knowing the seed.
/// Never stored or sent: it means nothing to another process.
public struct KeyedDigest: Hashable, Sendable {
    let high: UInt64
    let low: UInt64

    /// `feed` hashes the input into the hasher it is given; it is run twice, with two keys.
    public init(_ feed: (inout Hasher) -> Void) {
        var first = Hasher()
        first.combine(0x5155_4f54 as UInt32)
        feed(&first)
        var second = Hasher()
        second.combine(0x4449_4745 as UInt32)
        feed(&second)
        high = UInt64(truncatingIfNeeded: first.finalize())
        low = UInt64(truncatingIfNeeded: second.finalize())
    }
}
