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
            if case .tail = pattern.segments.last {} else {
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
        let bytes = path.utf8
        guard bytes.first == Self.slash else { return nil }
        var parameters = RouteParameters()
        guard let index = match(path, from: bytes.index(after: bytes.startIndex), at: root, &parameters) else {
            return nil
        }
        return (index, parameters)
    }

    private static let slash = UInt8(ascii: "/")

    /// The route below `node` of the path's rest from `start`, the first byte of a segment (nil
    /// when the path ended before one). On the path's own bytes: every request goes through
    /// here, so it splits nothing off and hashes nothing.
    private func match(_ path: String, from start: String.Index?, at node: Node, _ parameters: inout RouteParameters)
        -> Int?
    {
        // A tail of no segments at all gives no value: `/pushToken/u/s` has no token,
        // `/pushToken/u/s/` an empty one.
        guard let start else { return node.route ?? node.tail?.route }
        let bytes = path.utf8
        let end = bytes[start...].firstIndex(of: Self.slash) ?? bytes.endIndex
        let next = end == bytes.endIndex ? nil : bytes.index(after: end)
        let segment = bytes[start..<end]
        if let child = node.literals.first(where: { segment.elementsEqual($0.text) })?.node,
            let route = match(path, from: next, at: child, &parameters)
        {
            return route
        }
        if let (name, child) = node.parameter, start != end {
            var tried = parameters
            tried.append(name, path[start..<end])
            if let route = match(path, from: next, at: child, &tried) {
                parameters = tried
                return route
            }
        }
        if start == end, next == nil, let route = node.route, node.routeTakesTrailingSlash {
            return route
        }
        if let tail = node.tail {
            parameters.append(tail.name, path[start...])
            return tail.route
        }
        return nil
    }
}
