/// The engine a connection speaks: SQLite or PostgreSQL. The store's SQL is written once
/// where the two agree; the few statements they spell differently pick by this.
public enum SQLEngine: String, Sendable, CaseIterable {
    case sqlite
    case postgresql
}

/// One prepared statement as the store's tables use it, on either engine: values bound by
/// number (from 1), rows stepped through, columns read by number (from 0).
protocol SQLRow: AnyObject {
    var sql: String { get }

    func bind(_ value: Int64, at index: Int32) throws
    func bind(_ value: String, at index: Int32) throws
    func bind(_ value: [UInt8], at index: Int32) throws
    func bindNull(at index: Int32) throws
    func bind(_ value: Int64?, at index: Int32) throws
    func bind(_ value: String?, at index: Int32) throws
    func bind(_ value: [UInt8]?, at index: Int32) throws
    /// A list as one value (see SQLRow+Lists.swift): a JSON array on SQLite, an array on
    /// PostgreSQL.
    func bindList(_ values: [Int64], at index: Int32) throws
    func bindList(_ values: [String?], at index: Int32) throws

    /// Advances to the next row: true when there is one to read, false when done.
    func step() throws -> Bool
    /// Forgets the current row and every bound value, ready to be bound and run again.
    func reset()
    /// Forgets the current row but keeps the bound values: a loop that runs one statement
    /// per row binds only what changed since the row before.
    func rewind()

    func isNull(_ column: Int32) -> Bool
    func int64(_ column: Int32) -> Int64
    func string(_ column: Int32) -> String?
    func blob(_ column: Int32) -> [UInt8]?
    /// Whether the column holds `text`, byte for byte (NULL holds none), read where the engine
    /// keeps it where it can: a comparison need not make a `String` of every value.
    func text(_ column: Int32, is text: String) -> Bool
    /// Whether the column holds `bytes` (NULL holds none), as `text(_:is:)`.
    func blob(_ column: Int32, is bytes: [UInt8]) -> Bool
}

extension SQLRow {
    func bind(_ value: Int, at index: Int32) throws {
        try bind(Int64(value), at: index)
    }

    /// Booleans are stored as 0 and 1 on both engines.
    func bind(_ value: Bool, at index: Int32) throws {
        try bind(Int64(value ? 1 : 0), at: index)
    }

    func bind(_ value: Bool?, at index: Int32) throws {
        try bind(value.map { Int64($0 ? 1 : 0) }, at: index)
    }

    /// Binds `values` to ?1, ?2, … in order.
    func bind<each Value: SQLValue>(_ values: repeat each Value) throws {
        var index: Int32 = 1
        for value in repeat each values {
            try value.bind(to: self, at: index)
            index += 1
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    func run() throws {
        while try step() {}
    }

    func optionalInt64(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int64(column)
    }

    /// Nil for SQL NULL.
    func bool(_ column: Int32) -> Bool? {
        isNull(column) ? nil : int64(column) != 0
    }

    public func text(_ column: Int32, is text: String) -> Bool {
        string(column).map { $0.utf8.elementsEqual(text.utf8) } ?? false
    }

    public func blob(_ column: Int32, is bytes: [UInt8]) -> Bool {
        blob(column) == bytes
    }
}

/// One connection as the store's tables use it, on either engine. The SQL they pass uses
/// SQLite's placeholders (`?`, `?NNN`); a PostgreSQL connection numbers them its own way.
protocol SQLConnection: AnyObject {
    associatedtype Row: SQLRow
    static var engine: SQLEngine { get }

    /// Calls `body` with the prepared statement for `sql`, prepared once per connection.
    func withStatement<T>(_ sql: String, _ body: (Row) throws -> T) throws -> T
    /// Runs one statement, binding nothing and ignoring any rows.
    func run(_ sql: String) throws
    /// Runs `script`: one or more statements without parameters.
    func execute(_ script: String) throws
    /// Rows changed by the last INSERT, UPDATE or DELETE (not counting cascades).
    var changes: Int { get }
    /// The id the last INSERT into a table with an integer key gave its row.
    func lastInsertedID() throws -> Int64
}

extension SQLConnection {
    /// Calls `body` with the statement this engine spells `sql` as.
    func withStatement<T>(_ sql: EngineSQL, _ body: (Row) throws -> T) throws -> T {
        try withStatement(sql.text(for: Self.engine), body)
    }

    /// Runs `sql` with `values` bound to ?1, ?2, … in order, ignoring any rows; returns the
    /// rows it changed.
    @discardableResult
    func run<each Value: SQLValue>(_ sql: String, binding values: repeat each Value) throws -> Int {
        try withStatement(sql) { row in
            try row.bind(repeat each values)
            try row.run()
        }
        return changes
    }

    /// Every row of `sql`, with `values` bound to ?1, ?2, … in order, each read by `read`.
    func rows<T, each Value: SQLValue>(
        _ sql: String, binding values: repeat each Value, read: (Row) throws -> T
    ) throws -> [T] {
        try withStatement(sql) { row in
            try row.bind(repeat each values)
            var rows: [T] = []
            while try row.step() { rows.append(try read(row)) }
            return rows
        }
    }

    /// `rows(_:binding:read:)` with the statement this engine spells `sql` as.
    func rows<T, each Value: SQLValue>(
        _ sql: EngineSQL, binding values: repeat each Value, read: (Row) throws -> T
    ) throws -> [T] {
        try rows(sql.text(for: Self.engine), binding: repeat each values, read: read)
    }

    /// The first row of `sql`, with `values` bound as `rows(_:binding:read:)` binds them, read
    /// by `read`; nil when there is none (or `read` finds nothing in it).
    func firstRow<T, each Value: SQLValue>(
        _ sql: String, binding values: repeat each Value, read: (Row) throws -> T?
    ) throws -> T? {
        try withStatement(sql) { row in
            try row.bind(repeat each values)
            return try row.step() ? try read(row) : nil
        }
    }

    /// `run(_:binding:)` with the statement this engine spells `sql` as.
    @discardableResult
    func run<each Value: SQLValue>(_ sql: EngineSQL, binding values: repeat each Value) throws -> Int {
        try run(sql.text(for: Self.engine), binding: repeat each values)
    }
}

/// A statement the two engines spell differently.
struct EngineSQL: Sendable {
    var sqlite: String
    var postgresql: String

    func text(for engine: SQLEngine) -> String {
        switch engine {
        case .sqlite: return sqlite
        case .postgresql: return postgresql
        }
    }
}

extension Statement: SQLRow {}

extension Database: SQLConnection {
    static var engine: SQLEngine { .sqlite }

    func lastInsertedID() throws -> Int64 { lastInsertRowID }
}
