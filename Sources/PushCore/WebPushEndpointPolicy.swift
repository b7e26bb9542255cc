#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which push services pushgate will POST to. A subscription's endpoint is a URL its
/// registrant chose, so without a list anyone could make pushgate send requests to any host,
/// the operator's own network included. An origin is allowed when the list names it exactly
/// or names `*.` a domain it is under; an address in a private, loopback, link-local or other
/// special range is allowed only when the operator listed that address itself.
public struct WebPushEndpointPolicy: Sendable, Equatable {
    /// One listed origin: `https://host[:port]`, or `https://*.domain[:port]`.
    struct Entry: Sendable, Equatable {
        var host: String
        var isWildcard: Bool
        var port: Int?
    }

    let entries: [Entry]

    /// The list as the operator would write it.
    public var listing: String {
        entries.map { entry in
            let host = entry.host.contains(":") ? "[\(entry.host)]" : entry.host
            return "https://" + (entry.isWildcard ? "*." : "") + host + (entry.port.map { ":\($0)" } ?? "")
        }.joined(separator: ",")
    }

    /// The public push services of the browsers people use: Chrome and Edge's FCM, Firefox's
    /// autopush, Safari's, and Windows' WNS.
    public static let publicPushServiceListing =
        "https://fcm.googleapis.com,https://updates.push.services.mozilla.com,https://web.push.apple.com,https://*.notify.windows.com"

    // The listing above parses: it is a constant the tests read too.
    // swiftlint:disable:next force_try
    public static let publicPushServices = try! WebPushEndpointPolicy(listing: publicPushServiceListing)

    public enum ListingError: Error, Equatable, CustomStringConvertible {
        case badEntry(String)
        case empty

        public var description: String {
            switch self {
            case .badEntry(let entry):
                return "\"\(entry)\" is not https://host[:port] or https://*.domain[:port]"
            case .empty:
                return "the list names no push service"
            }
        }
    }

    /// Reads `PUSHGATE_WEBPUSH_ENDPOINTS`: origins separated by commas (spaces around them
    /// allowed), each `https://host[:port]` with an optional leading `*.` on the host.
    public init(listing: String) throws(ListingError) {
        var entries: [Entry] = []
        for piece in listing.split(separator: ",") {
            var text = String(piece.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            if text.hasSuffix("/") { text.removeLast() }
            guard !text.isEmpty else { continue }
            let isWildcard = text.lowercased().hasPrefix("https://*.")
            let parseable = isWildcard ? "https://" + text.dropFirst("https://*.".count) : text
            guard let endpoint = WebPushEndpoint(parseable), endpoint.url.utf8.count == parseable.utf8.count,
                !parseable.dropFirst("https://".count).contains("/"), !parseable.contains("?")
            else { throw .badEntry(text) }
            if isWildcard && IPAddress(endpoint.host) != nil { throw .badEntry(text) }
            entries.append(Entry(host: endpoint.host, isWildcard: isWildcard, port: endpoint.port))
        }
        guard !entries.isEmpty else { throw .empty }
        self.entries = entries
    }

    /// Nil when pushgate may send to `endpoint`; otherwise why not, in a sentence for the
    /// registrant.
    public func refusal(of endpoint: WebPushEndpoint) -> String? {
        guard entries.contains(where: { $0.matches(endpoint) }) else {
            return "push endpoint \(endpoint.origin) is not a push service this server sends to"
        }
        if let address = IPAddress(endpoint.host), address.isSpecialPurpose, !isListed(address) {
            return "push endpoint \(endpoint.origin) is a private or local address"
        }
        return nil
    }

    /// The same for an endpoint still in text.
    public func refusal(of endpointText: String) -> String? {
        guard let endpoint = WebPushEndpoint(endpointText) else {
            return "push endpoint is not an https URL"
        }
        return refusal(of: endpoint)
    }

    /// May pushgate connect to `address`, which an endpoint's host resolved to? A listed name
    /// must not lead into the operator's own network (its DNS can point anywhere): a private or
    /// local address is allowed only when the list names that address itself.
    public func allowsAddress(_ address: String) -> Bool {
        guard let parsed = IPAddress(address) else { return false }
        return !parsed.isSpecialPurpose || isListed(parsed)
    }

    private func isListed(_ address: IPAddress) -> Bool {
        entries.contains { !$0.isWildcard && IPAddress($0.host) == address }
    }
}

extension WebPushEndpointPolicy.Entry {
    func matches(_ endpoint: WebPushEndpoint) -> Bool {
        guard port == endpoint.port else { return false }
        if isWildcard {
            return endpoint.host.hasSuffix("." + host) && IPAddress(endpoint.host) == nil
        }
        return endpoint.host == host
    }
}

/// An IPv4 or IPv6 address in numeric form, and whether it is outside the public internet.
struct IPAddress: Equatable {
    /// 4 or 16 bytes.
    let bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
            return
        }
        return nil
    }

    private init(v4 bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Loopback, private (RFC 1918, unique-local), link-local, shared (CGNAT), unspecified,
    /// documentation, benchmarking, multicast and reserved ranges; IPv4 inside IPv6 (mapped,
    /// NAT64) is judged by its IPv4 address.
    var isSpecialPurpose: Bool {
        if bytes.count == 4 { return Self.isSpecialIPv4(bytes) }
        let prefix96 = Array(bytes[0..<12])
        if prefix96 == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] || prefix96 == [0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] {
            return Self.isSpecialIPv4(Array(bytes[12..<16]))
        }
        if bytes.allSatisfy({ $0 == 0 }) { return true }  // ::
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }  // ::1
        if bytes[0] & 0xFE == 0xFC { return true }  // fc00::/7
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return true }  // fe80::/10
        if bytes[0] == 0xFF { return true }  // multicast
        if bytes[0] == 0x20 && bytes[1] == 0x01 && bytes[2] == 0x0D && bytes[3] == 0xB8 { return true }  // 2001:db8::/32
        return false
    }

    private static func isSpecialIPv4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return true
        case (100, 64...127): return true
        case (169, 254): return true
        case (172, 16...31): return true
        case (192, 168): return true
        case (198, 18...19): return true
        case (224...255, _): return true
        default: break
        }
        if b[0] == 192 && b[1] == 0 && (b[2] == 0 || b[2] == 2) { return true }
        if b[0] == 198 && b[1] == 51 && b[2] == 100 { return true }
        if b[0] == 203 && b[1] == 0 && b[2] == 113 { return true }
        return false
    }
}
