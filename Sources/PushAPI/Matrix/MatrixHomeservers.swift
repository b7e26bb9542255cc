#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Who may call the Matrix push gateway (`PUSHGATE_MATRIX_HOMESERVERS`): a homeserver sends no
/// credentials (a pusher holds only a URL), so its address is all there is to go by. nginx's
/// location allows the same list; `MatrixGateway` checks it again, so that a request that
/// reached the socket some other way is refused too.
public struct MatrixHomeservers: Sendable, Equatable, CustomStringConvertible {
    /// One address or CIDR range, as network bytes (4 for IPv4, 16 for IPv6) and a prefix length.
    struct Range: Sendable, Equatable {
        var network: [UInt8]
        var prefixLength: Int
        /// As the operator wrote it.
        var text: String

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == network.count else { return false }
            var bits = prefixLength
            for (ours, theirs) in zip(network, address) {
                guard bits > 0 else { return true }
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if ours & mask != theirs & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    let ranges: [Range]

    /// Loopback only: a homeserver on the same machine.
    public static let loopbackListing = "127.0.0.0/8,::1"
    // The listing above parses: it is a constant the tests read too.
    // swiftlint:disable:next force_try
    public static let loopback = try! MatrixHomeservers(listing: loopbackListing)

    public enum ListingError: Error, Equatable, CustomStringConvertible {
        case badEntry(String)
        case empty

        public var description: String {
            switch self {
            case .badEntry(let entry): return "\"\(entry)\" is not an IP address or CIDR range"
            case .empty: return "the list names no address"
            }
        }
    }

    /// Reads addresses and CIDR ranges (`10.0.0.5`, `10.1.0.0/16`, `2001:db8::/32`) separated
    /// by commas or spaces.
    public init(listing: String) throws(ListingError) {
        var ranges: [Range] = []
        for piece in listing.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            let text = String(piece)
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let network = Self.addressBytes(String(parts[0])) else { throw .badEntry(text) }
            var prefixLength = network.count * 8
            if parts.count == 2 {
                guard parts[1].count <= 3, let length = Int(parts[1]), (0...network.count * 8).contains(length) else {
                    throw .badEntry(text)
                }
                prefixLength = length
            }
            ranges.append(Range(network: network, prefixLength: prefixLength, text: text))
        }
        guard !ranges.isEmpty else { throw .empty }
        self.ranges = ranges
    }

    /// Whether a caller at `address` (the request's `REMOTE_ADDR`) may call. An IPv4 address
    /// written inside IPv6 (`::ffff:10.0.0.5`) is judged as the IPv4 address it is.
    public func allows(_ address: String) -> Bool {
        guard var bytes = Self.addressBytes(address) else { return false }
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12..<16])
        }
        return ranges.contains { $0.contains(bytes) }
    }

    /// A range of prefix length 0 (`0.0.0.0/0`, `::/0`): anyone who can reach nginx may make
    /// pushgate push to any registered app's devices. `pushgate doctor` warns.
    public var isOpenToEveryone: Bool {
        ranges.contains { $0.prefixLength == 0 }
    }

    /// The list as the operator would write it.
    public var listing: String { ranges.map(\.text).joined(separator: ",") }

    public var description: String { listing }

    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
