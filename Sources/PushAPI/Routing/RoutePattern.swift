/// A route's path, written as the documents write it: literal segments, `{name}` for one
/// segment's value, and a last `{name...}` for the rest of the path, however many segments
/// (none included). `/device_api/v1/instances/{instance}/…`, `/pushToken/{path...}`. A
/// pattern ending in `/?` takes the path with a trailing `/` too (`/api/push/?`), as the
/// dialects that always did so still do; one ending in `/` takes only the path ending so (an
/// empty last segment).
public struct RoutePattern: Sendable, Equatable, CustomStringConvertible {
    public enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case tail(String)
    }

    public let segments: [Segment]
    public let description: String
    /// Written with `/?`: the path may end in one `/` more.
    public let allowsTrailingSlash: Bool

    /// - Precondition: `text` starts with `/`, and only its last segment may be a tail. A
    ///   pattern is the code's, never a caller's: a malformed one is a programming error.
    public init(_ text: String) {
        precondition(text.hasPrefix("/"), "a route pattern starts with /: \(text)")
        description = text
        allowsTrailingSlash = text.hasSuffix("/?")
        let parts = text.dropFirst().dropLast(allowsTrailingSlash ? 2 : 0)
            .split(separator: "/", omittingEmptySubsequences: false)
        segments = parts.enumerated().map { offset, part in
            guard part.hasPrefix("{"), part.hasSuffix("}") else { return .literal(String(part)) }
            let name = part.dropFirst().dropLast()
            guard name.hasSuffix("...") else { return .parameter(String(name)) }
            precondition(offset == parts.count - 1, "only a pattern's last segment may be a tail: \(text)")
            return .tail(String(name.dropLast(3)))
        }
    }

    /// The literal segments before the first parameter or tail, as a path (`/token`).
    var literalPrefix: String {
        let literals = segments.prefix { if case .literal = $0 { true } else { false } }
        return "/" + literals.map { if case .literal(let text) = $0 { text } else { "" } }.joined(separator: "/")
    }

    /// A path this pattern matches: each parameter filled with `value`, a tail with
    /// `tailSegments` segments of it (none: the path ends before the tail's `/`).
    public func example(_ value: String = "x", tailSegments: Int = 1) -> String {
        var path = "/" + segments.map { segment in
            switch segment {
            case .literal(let text): return text
            case .parameter: return value
            case .tail: return Array(repeating: value, count: tailSegments).joined(separator: "/")
            }
        }.joined(separator: "/")
        if case .tail = segments.last, tailSegments == 0 { path.removeLast() }
        return path
    }

    /// Segments before the tail, or nil without one: where `RequestPathCheck` starts reading a
    /// route's opaque tail.
    var segmentsBeforeTail: Int? {
        guard case .tail = segments.last else { return nil }
        return segments.count - 1
    }

    /// The pattern with every literal kept and every parameter and tail the same: two routes of
    /// one shape would match exactly the same paths.
    public var shape: String {
        segments.map { segment in
            switch segment {
            case .literal(let text): return text
            case .parameter: return "{}"
            case .tail: return "{...}"
            }
        }.joined(separator: "/")
    }
}
