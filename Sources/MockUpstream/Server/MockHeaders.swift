/// Request headers in arrival order, names lower-case (HTTP/2 sends them so; the HTTP/1.1
/// handler folds them). Kept as a list because APNs answers `DuplicateHeaders` when a name repeats.
public struct MockHeaders: Sendable, Equatable, Sequence {
    public private(set) var pairs: [Pair]

    public struct Pair: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    init(_ pairs: [Pair] = []) {
        self.pairs = pairs
    }

    /// `name` must already be lower-case.
    mutating func append(name: String, value: String) {
        pairs.append(Pair(name: name, value: value))
    }

    /// The first value of `name` (lower-case).
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    public func count(of name: String) -> Int {
        pairs.reduce(0) { $0 + ($1.name == name ? 1 : 0) }
    }

    public func makeIterator() -> IndexingIterator<[Pair]> {
        pairs.makeIterator()
    }
}
