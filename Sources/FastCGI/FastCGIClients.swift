import Glibc
import PushCore

/// The hosts allowed to connect to `serve`'s FastCGI port (`PUSHGATE_FASTCGI_CLIENTS`): IPv4
/// addresses or CIDR ranges of the nginx hosts. FastCGI has no authentication, and whoever
/// connects writes REMOTE_ADDR itself, on which the homeserver allow-list, loopback's trust
/// before a key exists and the per-address quotas rest; so a connection from anywhere else is
/// closed before a byte of it is read. libfcgi's own `FCGI_WEB_SERVER_ADDRS` is the precedent.
/// IPv4 only, as the listener is (libfcgi binds `HOST:PORT` over IPv4).
public struct FastCGIClients: Sendable, Equatable, CustomStringConvertible {
    let addresses: AddressRanges
    /// As the operator wrote it.
    public let listing: String

    /// 127.0.0.0/8: the default, what a listener on a loopback address can only be reached from.
    // A constant that parses.
    // swiftlint:disable:next force_try
    public static let loopback = FastCGIClients(
        addresses: try! AddressRanges(listing: "127.0.0.0/8"), listing: "127.0.0.0/8")

    private init(addresses: AddressRanges, listing: String) {
        self.addresses = addresses
        self.listing = listing
    }

    /// Reads IPv4 addresses and CIDR ranges (`10.0.0.5`, `10.0.0.0/24`) separated by commas or
    /// spaces; nil when an entry is neither (an IPv6 one included) or nothing is listed.
    public init?(listing: String) {
        guard let addresses = try? AddressRanges(listing: listing),
            addresses.ranges.allSatisfy({ $0.network.count == 4 })
        else { return nil }
        self.init(addresses: addresses, listing: listing.trimmingSpaces)
    }

    /// Whether a peer at this IPv4 address (host byte order) may speak FastCGI to `serve`.
    public func allows(_ address: UInt32) -> Bool {
        addresses.contains([
            UInt8(address >> 24), UInt8(address >> 16 & 0xFF), UInt8(address >> 8 & 0xFF), UInt8(address & 0xFF),
        ])
    }

    /// Whether a peer at this address may: only IPv4 addresses are listed, an IPv4-mapped one
    /// (::ffff:A.B.C.D) by its IPv4 address, as an accepted peer is.
    public func allows(_ address: IPAddress) -> Bool {
        let bytes = address.isIPv4Mapped ? Array(address.bytes[12...]) : address.bytes
        return bytes.count == 4 && addresses.contains(bytes)
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
        addresses.ranges.allSatisfy { $0.prefixLength >= 8 && $0.network[0] == 127 }
    }

    public var description: String { listing }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
