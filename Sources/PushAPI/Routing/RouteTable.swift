import PushCore

/// Finds the route of a raw path in one walk over its segments. The most specific route wins,
/// whatever order the routes were given in: a literal segment before a `{parameter}`, a
/// parameter before a `{tail...}`. So `/api/push/events` goes to its own route although
/// `/api/push/{path...}` would take it too, and no route depends on its place in the table.
/// Two routes of the same shape would match the same paths: the table refuses them.
struct RouteTable: Sendable {
    private final class Node: @unchecked Sendable {
        // @unchecked: built once in `init`, read-only after.
        var literals: [Substring: Node] = [:]
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
                    let next = node.literals[Substring(text)] ?? Node()
                    node.literals[Substring(text)] = next
                    node = next
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
        guard path.utf8.first == UInt8(ascii: "/") else { return nil }
        let segments = path.utf8.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        var parameters = RouteParameters()
        guard let index = match(segments, from: 0, at: root, in: path, &parameters) else { return nil }
        return (index, parameters)
    }

    private func match(
        _ segments: [Substring.UTF8View], from position: Int, at node: Node, in path: String,
        _ parameters: inout RouteParameters
    ) -> Int? {
        guard position < segments.count else {
            if let route = node.route { return route }
            // A tail of no segments at all gives no value: `/pushToken/u/s` has no token,
            // `/pushToken/u/s/` an empty one.
            return node.tail?.route
        }
        let segment = Substring(segments[position])
        if let next = node.literals[segment], let route = match(segments, from: position + 1, at: next, in: path, &parameters) {
            return route
        }
        if let (name, next) = node.parameter, !segment.isEmpty {
            var tried = parameters
            tried.append(name, segment)
            if let route = match(segments, from: position + 1, at: next, in: path, &tried) {
                parameters = tried
                return route
            }
        }
        if segment.isEmpty, position == segments.count - 1, let route = node.route, node.routeTakesTrailingSlash {
            return route
        }
        if let tail = node.tail {
            parameters.append(tail.name, path[segment.startIndex...])
            return tail.route
        }
        return nil
    }
}
