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
        var network: UInt64? = nil
        if Self.ipv4(trimmed) != nil {
            text = trimmed
        } else if trimmed.contains(":"), let bytes = Self.ipv6(trimmed) {
            if bytes.prefix(10).allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
                text = bytes[12...].map(String.init).joined(separator: ".")
            } else {
                let groups = (0..<4).map { UInt16(bytes[2 * $0]) << 8 | UInt16(bytes[2 * $0 + 1]) }
                text = groups.map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
                network = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
            }
        } else {
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

    /// The four bytes of a dotted-quad IPv4 address (decimal, no leading zeros beyond `0`),
    /// nil when it is not one.
    static func ipv4(_ text: some StringProtocol) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), let value = UInt8(part),
                part.count == 1 || part.first != "0"
            else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    /// The sixteen bytes of an IPv6 address in text (`::` expanded, a trailing dotted IPv4
    /// part read, a `%zone` dropped), nil when it is not one.
    static func ipv6(_ address: String) -> [UInt8]? {
        let bare = address.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let halves = bare.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        // Each half as 16-bit groups; a dotted IPv4 part may end the address (two groups).
        func parse(_ part: String, last: Bool) -> [UInt16]? {
            if part.isEmpty { return [] }
            var groups: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if last, index == pieces.count - 1, piece.contains(".") {
                    guard let four = ipv4(piece) else { return nil }
                    groups.append(UInt16(four[0]) << 8 | UInt16(four[1]))
                    groups.append(UInt16(four[2]) << 8 | UInt16(four[3]))
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                groups.append(value)
            }
            return groups
        }
        let groups: [UInt16]
        if halves.count == 1 {
            guard let all = parse(halves[0], last: true), all.count == 8 else { return nil }
            groups = all
        } else {
            guard let head = parse(halves[0], last: false), let tail = parse(halves[1], last: true),
                head.count + tail.count < 8
            else { return nil }
            groups = head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        return groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
