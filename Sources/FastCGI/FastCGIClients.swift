import Glibc

/// The hosts allowed to connect to `serve`'s FastCGI port (`PUSHGATE_FASTCGI_CLIENTS`): IPv4
/// addresses or CIDR ranges of the nginx hosts. FastCGI has no authentication, and whoever
/// connects writes REMOTE_ADDR itself, on which the homeserver allow-list, loopback's trust
/// before a key exists and the per-address quotas rest; so a connection from anywhere else is
/// closed before a byte of it is read. libfcgi's own `FCGI_WEB_SERVER_ADDRS` is the precedent.
/// IPv4 only, as the listener is (libfcgi binds `HOST:PORT` over IPv4).
public struct FastCGIClients: Sendable, Equatable, CustomStringConvertible {
    /// One address or range: its network and mask, host byte order.
    struct Range: Sendable, Equatable {
        let network: UInt32
        let mask: UInt32
    }

    let ranges: [Range]
    /// As the operator wrote it.
    public let listing: String

    /// 127.0.0.0/8: the default, what a listener on a loopback address can only be reached from.
    public static let loopback = FastCGIClients(
        ranges: [Range(network: 0x7F00_0000, mask: 0xFF00_0000)], listing: "127.0.0.0/8")

    private init(ranges: [Range], listing: String) {
        self.ranges = ranges
        self.listing = listing
    }

    /// Reads IPv4 addresses and CIDR ranges (`10.0.0.5`, `10.0.0.0/24`) separated by commas or
    /// spaces; nil when an entry is neither or nothing is listed.
    public init?(listing: String) {
        var ranges: [Range] = []
        for piece in listing.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            let parts = piece.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            var address = in_addr()
            guard inet_pton(AF_INET, String(parts[0]), &address) == 1 else { return nil }
            var length = 32
            if parts.count == 2 {
                guard parts[1].count <= 2, parts[1].allSatisfy({ $0.isASCII && $0.isNumber }), let bits = Int(parts[1]),
                    (0...32).contains(bits)
                else { return nil }
                length = bits
            }
            let mask: UInt32 = length == 0 ? 0 : UInt32.max << UInt32(32 - length)
            ranges.append(Range(network: UInt32(bigEndian: address.s_addr) & mask, mask: mask))
        }
        guard !ranges.isEmpty else { return nil }
        self.ranges = ranges
        self.listing = listing.trimmingSpaces
    }

    /// Whether a peer at this IPv4 address (host byte order) may speak FastCGI to `serve`.
    public func allows(_ address: UInt32) -> Bool {
        ranges.contains { address & $0.mask == $0.network }
    }

    /// Whether a peer whose accepted address is `peer` may: only IPv4 peers are listed, an
    /// IPv4 peer of an IPv6 socket (::ffff:A.B.C.D) by its IPv4 address.
    func allows(_ peer: sockaddr_in6) -> Bool {
        guard let address = Self.ipv4Address(of: peer) else { return false }
        return allows(address)
    }

    /// The IPv4 address (host byte order) of an accepted peer, read as `sockaddr_in` or as an
    /// IPv4-mapped IPv6 address; nil for any other IPv6 peer.
    static func ipv4Address(of peer: sockaddr_in6) -> UInt32? {
        var peer = peer
        if peer.sin6_family == sa_family_t(AF_INET) {
            return withUnsafePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt32(bigEndian: $0.pointee.sin_addr.s_addr)
                }
            }
        }
        guard peer.sin6_family == sa_family_t(AF_INET6) else { return nil }
        let bytes = withUnsafeBytes(of: peer.sin6_addr) { Array($0) }
        guard bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF else { return nil }
        return bytes[12...].reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Whether every listed address is a loopback one (127.0.0.0/8).
    public var isLoopbackOnly: Bool {
        ranges.allSatisfy { $0.mask >= 0xFF00_0000 && $0.network >> 24 == 127 }
    }

    public var description: String { listing }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
