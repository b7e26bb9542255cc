/// A block of addresses that is not the public internet: every block of IANA's IPv4 and IPv6
/// Special-Purpose Address Registries (RFC 6890; the registries as of 2025), multicast, the
/// deprecated blocks those registries no longer list, and for IPv6 everything outside global
/// unicast (2000::/3, IANA's IPv6 Address Space). Blocks the registries call globally
/// reachable (AS112, AMT, the PCP and TURN anycast addresses) are in too: no push service
/// lives in one, and a push endpoint has no business there.
public struct SpecialPurposeRange: Sendable, Equatable, CustomStringConvertible {
    /// The block in CIDR notation, as the registry writes it.
    public let block: String
    /// The registry's name for it.
    public let name: String
    let prefix: [UInt8]
    let length: Int

    init(_ block: String, _ name: String) {
        let parts = block.split(separator: "/")
        // The tables below are constants; a typo in one is a programming error the tests catch.
        guard parts.count == 2, let address = IPAddress(String(parts[0])), let length = Int(parts[1]),
            length <= address.bytes.count * 8
        else { preconditionFailure("bad CIDR block \(block)") }
        self.block = block
        self.name = name
        prefix = address.bytes
        self.length = length
    }

    public var description: String { "\(block) (\(name))" }

    /// Whether `bytes` (of the same family) start with the block's prefix.
    func contains(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == prefix.count else { return false }
        var remaining = length
        var index = 0
        while remaining >= 8 {
            if bytes[index] != prefix[index] { return false }
            remaining -= 8
            index += 1
        }
        guard remaining > 0 else { return true }
        let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - remaining))
        return bytes[index] & mask == prefix[index] & mask
    }

    /// IANA's IPv4 Special-Purpose Address Registry, with multicast (224.0.0.0/4).
    public static let ipv4: [SpecialPurposeRange] = [
        .init("0.0.0.0/8", "this network"),
        .init("10.0.0.0/8", "private use"),
        .init("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
        .init("127.0.0.0/8", "loopback"),
        .init("169.254.0.0/16", "link local"),
        .init("172.16.0.0/12", "private use"),
        .init("192.0.0.0/24", "IETF protocol assignments"),
        .init("192.0.2.0/24", "documentation (TEST-NET-1)"),
        .init("192.31.196.0/24", "AS112-v4"),
        .init("192.52.193.0/24", "AMT"),
        .init("192.88.99.0/24", "deprecated 6to4 relay anycast"),
        .init("192.168.0.0/16", "private use"),
        .init("192.175.48.0/24", "direct delegation AS112 service"),
        .init("198.18.0.0/15", "benchmarking"),
        .init("198.51.100.0/24", "documentation (TEST-NET-2)"),
        .init("203.0.113.0/24", "documentation (TEST-NET-3)"),
        .init("224.0.0.0/4", "multicast"),
        .init("240.0.0.0/4", "reserved"),
        .init("255.255.255.255/32", "limited broadcast"),
    ]

    /// IPv6 blocks whose last 32 bits are an IPv4 address that says where the packet goes.
    static let embeddingIPv4: [SpecialPurposeRange] = [
        .init("::ffff:0:0/96", "IPv4-mapped"),
        .init("64:ff9b::/96", "IPv4-IPv6 translation (well-known prefix)"),
    ]

    /// IANA's IPv6 Special-Purpose Address Registry, the deprecated site-local and
    /// IPv4-compatible blocks, multicast, and the rest of the space outside global unicast.
    public static let ipv6: [SpecialPurposeRange] = [
        .init("::1/128", "loopback"),
        .init("::/128", "unspecified"),
        .init("::/96", "IPv4-compatible (deprecated)"),
        .init("::ffff:0:0:0/96", "IPv4-translated"),
        .init("64:ff9b:1::/48", "IPv4-IPv6 translation (local use)"),
        .init("100::/64", "discard-only"),
        .init("100:0:0:1::/64", "dummy prefix"),
        .init("2001::/23", "IETF protocol assignments (Teredo, benchmarking, ORCHID, AMT, AS112…)"),
        .init("2001:db8::/32", "documentation"),
        .init("2002::/16", "6to4"),
        .init("2620:4f:8000::/48", "direct delegation AS112 service"),
        .init("3fff::/20", "documentation"),
        .init("5f00::/16", "segment routing SIDs"),
        .init("fc00::/7", "unique local"),
        .init("fe80::/10", "link local"),
        .init("fec0::/10", "site local (deprecated)"),
        .init("ff00::/8", "multicast"),
        .init("::/3", "outside global unicast"),
        .init("4000::/2", "outside global unicast"),
        .init("8000::/1", "outside global unicast"),
    ]
}
