/// A request's headers, names lowercased with hyphens (`content-type`). A client sends a
/// handful, so a list read in order beats a dictionary, which hashed every name on the way in
/// and allocated a table for each request whether a handler looked at it or not.
public struct HTTPHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral, Sequence {
    /// One header. A struct, not a tuple: an array of tuples is destroyed through the
    /// runtime's generic tuple code, one call per field.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    private var fields: [Field] = []

    public init() {}

    /// Room for `count` fields at once, not a resize for each of the first few.
    public init(minimumCapacity count: Int) {
        fields.reserveCapacity(count)
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    public init(_ dictionary: [String: String]) {
        fields = dictionary.map { Field(name: $0.key, value: $0.value) }
    }

    /// The value of the field `name` (lowercase); setting nil removes it.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name == name }?.value }
        set {
            guard let index = fields.firstIndex(where: { $0.name == name }) else {
                if let newValue { fields.append(Field(name: name, value: newValue)) }
                return
            }
            if let newValue { fields[index].value = newValue } else { fields.remove(at: index) }
        }
    }

    /// Adds a field; a name already present gets `value` joined to its own after `separator`
    /// (a header sent twice). One look through the fields, not a read and then a write.
    public mutating func add(_ name: String, _ value: String, joiningRepeatsWith separator: String) {
        guard let index = fields.firstIndex(where: { $0.name == name }) else {
            fields.append(Field(name: name, value: value))
            return
        }
        fields[index].value += separator + value
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The same fields, in any order (as two dictionaries are equal).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.count == rhs.count && lhs.fields.allSatisfy { rhs[$0.name] == $0.value }
    }
}
