/// A list of IP addresses and CIDR ranges as an operator writes one in a setting
/// (`10.0.0.5`, `10.1.0.0/16`, `2001:db8::/32`, separated by commas or spaces), and whether a
/// caller's address is in it: who may call the Matrix gateway (`MatrixHomeservers`), who may
/// speak FastCGI to `serve` over TCP (`FastCGIClients`).
public struct AddressRanges: Sendable, Equatable {
    /// One address or CIDR range, as network bytes (4 for IPv4, 16 for IPv6) and a prefix length.
    public struct Range: Sendable, Equatable {
        public let network: [UInt8]
        public let prefixLength: Int
        /// As the operator wrote it.
        public let text: String

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

    public let ranges: [Range]

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

    /// Reads the list; a prefix length is decimal digits up to the address's bits.
    public init(listing: String) throws(ListingError) {
        var ranges: [Range] = []
        for piece in listing.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }) {
            let text = String(piece)
            let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let network = IPAddress(String(parts[0]))?.bytes else { throw .badEntry(text) }
            var prefixLength = network.count * 8
            if parts.count == 2 {
                guard (1...3).contains(parts[1].count), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
                    let length = Int(parts[1]), (0...network.count * 8).contains(length)
                else { throw .badEntry(text) }
                prefixLength = length
            }
            ranges.append(Range(network: network, prefixLength: prefixLength, text: text))
        }
        guard !ranges.isEmpty else { throw .empty }
        self.ranges = ranges
    }

    /// Whether the address (4 or 16 bytes) is in a range. An IPv4 address inside IPv6
    /// (`::ffff:10.0.0.5`) is judged as the IPv4 address it is.
    public func contains(_ address: [UInt8]) -> Bool {
        var bytes = address
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            bytes = Array(bytes[12..<16])
        }
        return ranges.contains { $0.contains(bytes) }
    }

    /// Whether an address in text is in a range; false for what is no address.
    public func contains(_ address: String) -> Bool {
        IPAddress(address).map { contains($0.bytes) } ?? false
    }

    /// A range of prefix length 0 (`0.0.0.0/0`, `::/0`): every address.
    public var isOpenToEveryone: Bool { ranges.contains { $0.prefixLength == 0 } }

    /// The list as the operator would write it.
    public var listing: String { ranges.map(\.text).joined(separator: ",") }
}
