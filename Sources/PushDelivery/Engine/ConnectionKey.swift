/// What decides whether two requests may share a connection: the origin (scheme, host, port)
/// and the client identity. libcurl never reuses a connection across identities.
struct ConnectionKey: Hashable {
    var origin: Substring
    var identity: ClientIdentity?

    init(_ request: UpstreamRequest) {
        identity = request.clientIdentity
        origin = Self.origin(of: request.url)
    }

    /// "https://host:port/path" → "https://host:port"; a malformed URL (no "://") keys as a
    /// whole. Scanned as UTF-8 bytes, since every push makes a key: String's `range(of:)` and
    /// `firstIndex(where:)` walk characters, with grapheme breaking, for every push.
    static func origin(of url: String) -> Substring {
        let bytes = url.utf8
        var index = bytes.startIndex
        while let colon = bytes[index...].firstIndex(of: UInt8(ascii: ":")) {
            let afterScheme = bytes[colon...].dropFirst()
            guard afterScheme.starts(with: "//".utf8) else {
                index = bytes.index(after: colon)
                continue
            }
            let host = bytes.index(colon, offsetBy: 3)
            let end =
                bytes[host...].firstIndex {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                } ?? bytes.endIndex
            return url[..<end]
        }
        return url[...]
    }
}
