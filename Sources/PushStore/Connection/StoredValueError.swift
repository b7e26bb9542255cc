/// A value read back from the database that the store cannot turn into its type: the schema's
/// CHECKs should make this impossible, so it means the file was changed behind pushgate's back.
public struct StoredValueError: Error, Sendable, Equatable, CustomStringConvertible {
    public var table: String
    public var column: String
    /// The offending value, or a summary of it; never a credential or a whole token.
    public var value: String
    /// The row's key, so an operator can find and fix it.
    public var rowKey: String

    public init(table: String, column: String, value: String, rowKey: String) {
        self.table = table
        self.column = column
        self.value = value
        self.rowKey = rowKey
    }

    public var description: String {
        "unreadable value in \(table).\(column) of row \(rowKey): \(value)"
    }
}
