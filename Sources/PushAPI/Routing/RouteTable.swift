import Glibc
import PushCore

/// Finds the route of a raw path in one walk over its segments. The most specific route wins,
/// whatever order the routes were given in: a literal segment before a `{parameter}`, a
/// parameter before a `{tail...}`. So `/api/push/events` goes to its own route although
/// `/api/push/{path...}` would take it too, and no route depends on its place in the table.
/// Two routes of the same shape would match the same paths: the table refuses them.
struct RouteTable: Sendable {
    private final class Node: @unchecked Sendable {
        // @unchecked: built once in `init`, read-only after.
        /// A handful per node: a scan of their bytes is cheaper than hashing the segment.
        var literals: [(text: [UInt8], node: Node)] = []
        var parameter: (name: String, node: Node)?
        var tail: (name: String, route: Int)?
        var route: Int?
        /// Whether `route` takes its path with a trailing `/` too.
        var routeTakesTrailingSlash = false

        /// The child of the literal `segment`, compared by length, then bytes. An empty literal
        /// is a pattern's last `/` (`…/devices/{platform}/`): the path ends in that `/`.
        func literal(_ segment: UnsafeBufferPointer<UInt8>) -> Node? {
            for (text, node) in literals where text.count == segment.count {
                guard let start = segment.baseAddress, !segment.isEmpty else { return node }
                let equal = text.withUnsafeBufferPointer { memcmp($0.baseAddress!, start, segment.count) == 0 }
                if equal { return node }
            }
            return nil
        }
    }

    private let root = Node()

    /// - Precondition: no two patterns of one shape (see `conflicts`).
    init(_ patterns: [RoutePattern]) {
        if let (first, second) = Self.conflicts(patterns).first {
            preconditionFailure("routes \(first) and \(second) would match the same paths")
        }
        for (index, pattern) in patterns.enumerated() {
            var node = root
            for segment in pattern.segments {
                switch segment {
                case .literal(let text):
                    if let next = node.literals.first(where: { $0.text.elementsEqual(text.utf8) })?.node {
                        node = next
                    } else {
                        let next = Node()
                        node.literals.append((Array(text.utf8), next))
                        node = next
                    }
                case .parameter(let name):
                    let next = node.parameter?.node ?? Node()
                    node.parameter = (name, next)
                    node = next
                case .tail(let name):
                    node.tail = (name, index)
                }
            }
            if case .tail = pattern.segments.last {
            } else {
                node.route = index
                node.routeTakesTrailingSlash = pattern.allowsTrailingSlash
            }
        }
    }

    /// The pairs of patterns of one shape (`/a/{b}` and `/a/{c}`), which would match exactly
    /// the same paths: any other two differ in a literal, or in which is more specific.
    static func conflicts(_ patterns: [RoutePattern]) -> [(RoutePattern, RoutePattern)] {
        var shapes: [String: RoutePattern] = [:]
        var conflicts: [(RoutePattern, RoutePattern)] = []
        for pattern in patterns {
            if let earlier = shapes.updateValue(pattern, forKey: pattern.shape) { conflicts.append((earlier, pattern)) }
        }
        return conflicts
    }

    /// The index of `path`'s route and its parameters, nil when none matches.
    func match(_ path: String) -> (index: Int, parameters: RouteParameters)? {
        var text = path
        return text.withUTF8 { bytes in
            guard bytes.first == Self.slash else { return nil }
            var parameters = RouteParameters()
            guard let index = match(Walk(path: path, bytes: bytes), from: 1, at: root, &parameters) else { return nil }
            return (index, parameters)
        }
    }

    private static let slash = UInt8(ascii: "/")

    /// The path as a String (for its parameters' values) and as bytes (to walk).
    private struct Walk {
        let path: String
        let bytes: UnsafeBufferPointer<UInt8>

        func value(_ range: Range<Int>) -> Substring {
            let start = path.utf8.index(path.utf8.startIndex, offsetBy: range.lowerBound)
            return path[start..<path.utf8.index(start, offsetBy: range.count)]
        }
    }

    /// The route below `node` of the path's rest from `start`, the offset of the first byte of a
    /// segment (nil when the path ended before one). On the path's own bytes: every request
    /// goes through here, so it splits nothing off and hashes nothing.
    private func match(_ walk: Walk, from start: Int?, at node: Node, _ parameters: inout RouteParameters) -> Int? {
        // A tail of no segments at all gives no value: `/pushToken/u/s` has no token,
        // `/pushToken/u/s/` an empty one.
        guard let start else { return node.route ?? node.tail?.route }
        let bytes = walk.bytes
        var end = start
        while end < bytes.count, bytes[end] != Self.slash { end += 1 }
        let next = end == bytes.count ? nil : end + 1
        let segment = UnsafeBufferPointer(rebasing: bytes[start..<end])
        if let child = node.literal(segment), let route = match(walk, from: next, at: child, &parameters) {
            return route
        }
        if let (name, child) = node.parameter, start != end {
            var tried = parameters
            tried.append(name, walk.value(start..<end))
            if let route = match(walk, from: next, at: child, &tried) {
                parameters = tried
                return route
            }
        }
        if start == end, next == nil, let route = node.route, node.routeTakesTrailingSlash {
            return route
        }
        if let tail = node.tail {
            parameters.append(tail.name, walk.value(start..<bytes.count))
            return tail.route
        }
        return nil
    }
}
