/// A value a statement binds by number, on either engine: what `SQLRow.bind(_:)` and
/// `SQLConnection.run(_:binding:)` take, so that a table binds its values in one call.
protocol SQLValue {
    func bind(to row: some SQLRow, at index: Int32) throws
    /// Binds SQL NULL typed as this type: PostgreSQL prepares a statement with a type for
    /// every parameter, and infers none for an untyped NULL.
    static func bindNull(to row: some SQLRow, at index: Int32) throws
}

extension Optional: SQLValue where Wrapped: SQLValue {
    func bind(to row: some SQLRow, at index: Int32) throws {
        if let self { try self.bind(to: row, at: index) } else { try Wrapped.bindNull(to: row, at: index) }
    }

    static func bindNull(to row: some SQLRow, at index: Int32) throws {
        try Wrapped.bindNull(to: row, at: index)
    }
}

extension Int64: SQLValue {
    func bind(to row: some SQLRow, at index: Int32) throws { try row.bind(self, at: index) }
    static func bindNull(to row: some SQLRow, at index: Int32) throws { try row.bind(Int64?.none, at: index) }
}

extension Int: SQLValue {
    func bind(to row: some SQLRow, at index: Int32) throws { try row.bind(Int64(self), at: index) }
    static func bindNull(to row: some SQLRow, at index: Int32) throws { try row.bind(Int64?.none, at: index) }
}

extension Bool: SQLValue {
    func bind(to row: some SQLRow, at index: Int32) throws { try row.bind(self, at: index) }
    static func bindNull(to row: some SQLRow, at index: Int32) throws { try row.bind(Bool?.none, at: index) }
}

extension String: SQLValue {
    func bind(to row: some SQLRow, at index: Int32) throws { try row.bind(self, at: index) }
    static func bindNull(to row: some SQLRow, at index: Int32) throws { try row.bind(String?.none, at: index) }
}

extension Array: SQLValue where Element == UInt8 {
    func bind(to row: some SQLRow, at index: Int32) throws { try row.bind(self, at: index) }
    static func bindNull(to row: some SQLRow, at index: Int32) throws { try row.bind([UInt8]?.none, at: index) }
}
