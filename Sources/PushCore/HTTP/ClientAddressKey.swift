/// The bucket a per-address limit counts a caller in, made from the caller's address as the
/// front server passed it (`REMOTE_ADDR`): an IPv4 address whole, an IPv6 address by its /64
/// (one subscriber's network: a client picks any address inside it at will), and an IPv4
/// client that a dual-stack listener shows as `::ffff:a.b.c.d` as the IPv4 address it is.
/// Without that fold every IPv4 caller of such a listener would share one /64, the one whose
/// first 64 bits are zero.
///
/// Every per-address limit of `serve` keys by this: the login throttle and the new-device
/// quota (nginx's `limit_req` folds the same way in the template's map).
public struct ClientAddressKey: Hashable, Sendable, CustomStringConvertible {
    /// `203.0.113.7`, `2001:db8:1:2::/64`, or for what is no address, its first
    /// `maximumOtherLength` characters lowercased.
    public let text: String

    /// An IPv6 caller's first 64 bits (its /64 as a number), from which the wider prefixes it
    /// belongs to (/56, /48) are masked without another string; nil for IPv4 and what is no
    /// address.
    public let ipv6Network: UInt64?

    /// What is no IP address (a FastCGI client of its own making can send anything) is kept to
    /// this many characters, so that no key is larger than an address's.
    public static let maximumOtherLength = 64

    public init(_ address: String) {
        let trimmed = address.trimmingASCIIWhitespace().lowercased()
        // A link-local IPv6 address may carry its `%zone`; the address is what comes before it.
        let address = IPAddress(trimmed.contains(":") ? String(trimmed.prefix { $0 != "%" }) : trimmed)
        var network: UInt64? = nil
        switch address {
        case let address? where address.bytes.count == 4:
            text = trimmed
        case let address? where address.isIPv4Mapped:
            text = address.bytes[12...].map(String.init).joined(separator: ".")
        case let address?:
            let bytes = address.bytes
            let groups = (0..<4).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
            text = groups.map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
            network = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
        case nil:
            text = String(trimmed.prefix(Self.maximumOtherLength))
        }
        ipv6Network = network
    }

    public var description: String { text }

    /// The IPv6 caller's /56 or /48 (`bits` of 1...64) as a number, nil for IPv4.
    public func ipv6Prefix(bits: Int) -> UInt64? {
        ipv6Network.map { $0 & ~(UInt64.max >> UInt64(bits)) }
    }

    // `ipv6Network` follows from `text`: equal texts are one key.
    public static func == (left: Self, right: Self) -> Bool { left.text == right.text }
    public func hash(into hasher: inout Hasher) { hasher.combine(text) }
}
