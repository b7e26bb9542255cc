/// An HTTP request as a handler sees it, independent of the transport that carried it.
public struct Request: Sendable {
    public var method: String
    /// The raw request target's path, still percent-encoded (as the client sent it).
    public var path: String
    /// The raw query string, without the `?`.
    public var query: String
    /// Header names lowercased, hyphens kept (`content-type`, `authorization`).
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The client's address as the front server saw it.
    public var remoteAddress: String
    /// A short id carried in log lines for this request.
    public var id: String
    /// When the front server's request was accepted (`Monotonic.nanoseconds()`), so that a
    /// handler can tell how much of the front server's patience is left; nil when the request
    /// was made in process.
    public var receivedAt: UInt64?
    /// The route the router matched, once, from the head (see `RequestHandler.route`); nil
    /// until then.
    public var route: RouteMatch?

    public init(
        method: String, path: String, query: String = "", headers: HTTPHeaders = [:],
        body: [UInt8] = [], remoteAddress: String = "127.0.0.1", id: String = "-"
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.id = id
    }

    /// Builds a request from an origin-form target such as `/token/?a=b`.
    public init(method: String, target: String, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        if let question = target.firstIndex(of: "?") {
            self.init(
                method: method, path: String(target[..<question]),
                query: String(target[target.index(after: question)...]), headers: headers, body: body)
        } else {
            self.init(method: method, path: target, headers: headers, body: body)
        }
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// A request made in process (tests, a wrapper) with its headers as a dictionary.
    public init(
        method: String, path: String, query: String = "", headers: [String: String], body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1", id: String = "-"
    ) {
        self.init(
            method: method, path: path, query: query, headers: HTTPHeaders(headers), body: body,
            remoteAddress: remoteAddress, id: id)
    }

    public init(method: String, target: String, headers: [String: String], body: [UInt8] = []) {
        self.init(method: method, target: target, headers: HTTPHeaders(headers), body: body)
    }

    /// The media type of the body without parameters, lowercased (`application/json`).
    public var mediaType: String? {
        guard var value = header("content-type") else { return nil }
        // A Content-Type is nearly always ASCII: then it is read on its bytes, without
        // splitting it into characters or lowercasing it through Unicode's tables, both far
        // dearer than the bytes' few comparisons.
        let trimmed =
            value.withUTF8(Self.asciiMediaType)
            ?? (value.split(separator: ";", maxSplits: 1).first.map(String.init) ?? value)
            .trimmingASCIIWhitespace().lowercased()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The type before any `;`, trimmed and in lower case; nil when the value is not ASCII.
    private static func asciiMediaType(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.isASCII else { return nil }
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        let type = UnsafeBufferPointer(rebasing: bytes[..<end]).trimmingASCIIWhitespace()
        return String(unsafeUninitializedCapacity: type.count) { lowered in
            for (index, byte) in type.enumerated() {
                lowered[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            }
            return type.count
        }
    }
}

extension StringProtocol where UTF8View: BidirectionalCollection {
    /// Without leading and trailing spaces, tabs, CRs and LFs (other whitespace is content).
    /// Inlinable, so that callers in other modules get it specialized for their String or
    /// Substring: unspecialized, every byte it read went through the generic witness tables.
    @inlinable
    public func trimmingASCIIWhitespace() -> String {
        // Nothing to trim is the common case (every Token Reporter token goes through here):
        // a String then comes back as it is, without copying its bytes.
        guard let first = utf8.first, let last = utf8.last else { return "" }
        if !first.isASCIIWhitespace && !last.isASCIIWhitespace { return String(self) }
        var text = String(self)
        return text.withUTF8 { String(decoding: $0.trimmingASCIIWhitespace(), as: UTF8.self) }
    }
}

extension UnsafeBufferPointer where Element == UInt8 {
    /// The bytes without leading and trailing spaces, tabs, CRs and LFs: the same trimming as
    /// the String one, for callers that read a value's bytes in place.
    @inlinable
    public func trimmingASCIIWhitespace() -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = count
        while start < end, self[start].isASCIIWhitespace { start += 1 }
        while end > start, self[end - 1].isASCIIWhitespace { end -= 1 }
        return UnsafeBufferPointer(rebasing: self[start..<end])
    }

    /// Whether every byte is ASCII (so the bytes are valid UTF-8 as they are): one pass that
    /// folds them together, with no branch per byte.
    @inlinable
    public var isASCII: Bool {
        var seen: UInt8 = 0
        for byte in self { seen |= byte }
        return seen < 0x80
    }
}

extension UInt8 {
    /// A space, tab, CR or LF: the whitespace `trimmingASCIIWhitespace` takes off.
    @inlinable
    public var isASCIIWhitespace: Bool {
        self == 0x20 || self == 0x09 || self == 0x0A || self == 0x0D
    }
}
