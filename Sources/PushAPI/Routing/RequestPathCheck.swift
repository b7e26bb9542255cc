/// Refuses a raw request path that nginx would read differently. nginx picks its location (and
/// so its rate limit) from `$uri`, the path it has percent-decoded and normalised; pushgate
/// routes on the raw `REQUEST_URI`. Where normalising would change the path (`.` and `..`
/// segments, `//`, `%2F`, `%2E`, and a raw `#`, where nginx ends `$uri`), the two could disagree: `/token/..` is `location /` to nginx
/// but a Token Reporter for the username `..` to a raw router. Such a path is never routed.
public struct RequestPathCheck: Sendable {
    /// Why a path was refused; its description is what the caller is told.
    public enum Refusal: Equatable, Sendable, CustomStringConvertible {
        /// A `.` or `..` segment, literal or percent-encoded.
        case dotSegment
        /// `//`: an empty segment, which nginx merges away.
        case emptySegment
        /// `%2F`: nginx decodes it into a separator.
        case encodedSlash
        /// `%2E`: nginx decodes it, and `%2e%2e` is `..` to it.
        case encodedDot
        /// A raw `#`: nginx ends `$uri` there, so it would choose its location by the path
        /// before it while the whole path names another endpoint.
        case numberSign

        public var description: String {
            switch self {
            case .dotSegment: return "the path has a . or .. segment: send the path it stands for"
            case .emptySegment: return "the path has an empty segment (//)"
            case .encodedSlash: return "the path has a percent-encoded / (%2F)"
            case .encodedDot: return "the path has a percent-encoded . (%2E)"
            case .numberSign: return "the path has a raw # (send it as %23)"
            }
        }
    }

    public init() {}

    /// Nil when `path` is what nginx would make of it, else why not.
    ///
    /// - Parameter opaqueTailAfter: the segments after which the rest of the path is a value
    ///   rather than names (the Token Reporter's `/pushToken/<username>/<selector>/<token>`,
    ///   whose base64 token may hold `/`, `//` and `%2F`). There `//` and `%2F` cannot move the
    ///   path to another location, so they pass; `.`/`..` segments and `%2E` are refused all
    ///   the same, since they could climb out of it.
    public func refusal(_ path: String, opaqueTailAfter segments: Int? = nil) -> Refusal? {
        // Every refusal needs a ".", a "%", a "#" or a "//": a path with none of them, nearly every
        // path, is passed after one look at its bytes.
        guard Self.isSuspect(path) else { return nil }
        let bytes = Array(path.utf8)
        // Where the opaque tail starts: after the leading "/" and `segments + 1` more slashes.
        let slashes = bytes.indices.filter { bytes[$0] == UInt8(ascii: "/") }
        let tailStart = segments.flatMap { slashes.count > $0 + 1 ? slashes[$0 + 1] + 1 : nil } ?? bytes.count + 1
        // A segment's bytes so far, with %2E read as "."; ends at "/" or (in the tail) "%2F".
        var segment: [UInt8] = []
        var index = 0
        func segmentEnded() -> Refusal? {
            defer { segment.removeAll(keepingCapacity: true) }
            return segment == [0x2E] || segment == [0x2E, 0x2E] ? .dotSegment : nil
        }
        // Anywhere, the opaque tail too: base64 has no "#", and nginx cuts there all the same.
        if bytes.contains(UInt8(ascii: "#")) { return .numberSign }
        while index < bytes.count {
            let byte = bytes[index]
            let inTail = index >= tailStart
            if byte == UInt8(ascii: "/") {
                if index > 0, let refusal = segmentEnded() { return refusal }
                // A token may begin with "/": the slash before it may be doubled.
                let nextInTail = index + 1 >= tailStart
                if !nextInTail, index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") { return .emptySegment }
                index += 1
                continue
            }
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count {
                let encoded = (bytes[index + 1], bytes[index + 2] | 0x20)  // the hex letter lowercased
                if encoded == (UInt8(ascii: "2"), UInt8(ascii: "f")) {
                    guard inTail else { return .encodedSlash }
                    if let refusal = segmentEnded() { return refusal }
                    index += 3
                    continue
                }
                if encoded == (UInt8(ascii: "2"), UInt8(ascii: "e")) {
                    return .encodedDot
                }
            }
            segment.append(byte)
            index += 1
        }
        return segmentEnded()
    }

    /// Whether the path has a ".", a "%", a "#" or a "//", read in place.
    private static func isSuspect(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            var previous: UInt8 = 0
            for byte in bytes {
                if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "#") { return true }
                if byte == UInt8(ascii: "/") && previous == UInt8(ascii: "/") { return true }
                previous = byte
            }
            return false
        }
    }

    /// The path as nginx would normalise it (decoded `/` and `.`, `//` merged, `.` and `..`
    /// resolved), to name the dialect whose shape a refusal takes when the raw path matches no
    /// route. Only for that: other escapes stay as they are.
    public func normalised(_ path: String) -> String {
        let decoded = path.decodingDotsAndSlashes()
        var kept: [Substring] = []
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = kept.popLast()
            default: kept.append(segment)
            }
        }
        return "/" + kept.joined(separator: "/")
    }
}

extension String {
    /// `%2E` and `%2F` decoded, in either case; nothing else.
    fileprivate func decodingDotsAndSlashes() -> String {
        var output: [UInt8] = []
        let bytes = Array(utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "2") {
                let letter = bytes[index + 2] | 0x20
                if letter == UInt8(ascii: "e") || letter == UInt8(ascii: "f") {
                    output.append(letter == UInt8(ascii: "e") ? UInt8(ascii: ".") : UInt8(ascii: "/"))
                    index += 3
                    continue
                }
            }
            output.append(bytes[index])
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }
}
