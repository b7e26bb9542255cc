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
        if let address = IPAddress(endpoint.host), address.isSpecialPurpose,
            !isListed(address, port: endpoint.port ?? 443)
        {
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

    /// Nil when pushgate may connect to `address` on `port`, which an endpoint's host resolved
    /// to; otherwise the special-purpose range that keeps it out. A listed name must not lead
    /// into the operator's own network (its DNS can point anywhere): an address in a special
    /// range is allowed only when the list names that address itself, with that port (an entry
    /// is scheme, host and port: `https://127.0.0.1:8443` opens 127.0.0.1 port 8443 and no other).
    public func refusedRange(of address: IPAddress, port: Int) -> SpecialPurposeRange? {
        guard let range = address.specialPurposeRange, !isListed(address, port: port) else { return nil }
        return range
    }

    /// The same for an address in text; one that is no address is refused.
    public func allowsAddress(_ address: String, port: Int) -> Bool {
        guard let parsed = IPAddress(address) else { return false }
        return refusedRange(of: parsed, port: port) == nil
    }

    private func isListed(_ address: IPAddress, port: Int) -> Bool {
        entries.contains { !$0.isWildcard && ($0.port ?? 443) == port && IPAddress($0.host) == address }
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
