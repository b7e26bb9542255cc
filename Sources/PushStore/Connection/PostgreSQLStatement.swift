import CLibPQ
import PushCore

/// A prepared statement on one PostgreSQL connection, with the same face as SQLite's
/// `Statement`: values bound by number, then stepped through row by row. The first `step`
/// sends the bound values (PQexecPrepared) and keeps the whole result; later steps read it.
///
/// Every value is bound with its type (int8, text, bytea), so that PostgreSQL never has to
/// guess one from context; booleans are bound as int8 0/1, as the schema stores them.
/// Integers go in the text format; text and bytea in the binary one, with their length, so
/// that a NUL inside a string reaches the server (which refuses it) instead of silently
/// ending the string. Results come back as text.
public final class PostgreSQLStatement {
    /// A bound value: its type and its bytes (NUL-terminated for the text format).
    private struct Parameter {
        var type: Oid
        var bytes: [UInt8]?
        var isBinary: Bool
    }

    private static let int8Type: Oid = 20
    private static let textType: Oid = 25
    private static let byteaType: Oid = 17
    private static let boolType: Oid = 16
    private static let int8ArrayType: Oid = 1016
    private static let textArrayType: Oid = 1009

    private unowned let connection: PostgreSQLConnection
    public let sql: String
    /// The SQL with PostgreSQL's `$n` placeholders.
    let text: String
    private var parameters: [Parameter]
    /// Server-side names of this SQL prepared per list of parameter types: PostgreSQL fixes
    /// the types when it prepares, and a NULL bound without a type leaves it to infer one.
    private var preparedNames: [[Oid]: String] = [:]
    private var result: OpaquePointer?
    private var row: Int32 = -1
    private var rowCount: Int32 = 0
    var isInUse = false

    init(connection: PostgreSQLConnection, sql: String) {
        self.connection = connection
        self.sql = sql
        let translated = PostgreSQLPlaceholders.translate(sql)
        text = translated.text
        parameters = Array(repeating: Parameter(type: 0, bytes: nil, isBinary: false), count: translated.parameterCount)
    }

    deinit {
        if let result { PQclear(result) }
    }

    // MARK: Binding

    private func set(_ parameter: Parameter, at index: Int32) throws {
        guard index >= 1, Int(index) <= parameters.count else {
            throw PostgreSQLError(
                sqlState: "08P01", message: "no parameter \(index) (the statement has \(parameters.count))", sql: sql)
        }
        parameters[Int(index) - 1] = parameter
    }

    private func textBytes(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes
    }

    public func bind(_ value: Int64, at index: Int32) throws {
        try set(Parameter(type: Self.int8Type, bytes: textBytes(String(value)), isBinary: false), at: index)
    }

    public func bind(_ value: String, at index: Int32) throws {
        try set(Parameter(type: Self.textType, bytes: Array(value.utf8), isBinary: true), at: index)
    }

    public func bind(_ value: [UInt8], at index: Int32) throws {
        try set(Parameter(type: Self.byteaType, bytes: value, isBinary: true), at: index)
    }

    public func bindNull(at index: Int32) throws {
        try set(Parameter(type: 0, bytes: nil, isBinary: false), at: index)
    }

    public func bind(_ value: Int64?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try typedNull(Self.int8Type, at: index) }
    }

    public func bind(_ value: String?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try typedNull(Self.textType, at: index) }
    }

    public func bind(_ value: [UInt8]?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try typedNull(Self.byteaType, at: index) }
    }

    /// An int8[], in the array's text form `{1,2,3}`.
    public func bindList(_ values: [Int64], at index: Int32) throws {
        let literal = "{" + values.map(String.init).joined(separator: ",") + "}"
        try set(Parameter(type: Self.int8ArrayType, bytes: textBytes(literal), isBinary: false), at: index)
    }

    /// A text[], in the array's text form: each element quoted with a backslash before `"`
    /// and `\`, NULL bare. (Text format, so a NUL would end the value: refused, as the
    /// server refuses NUL in text anyway.)
    public func bindList(_ values: [String?], at index: Int32) throws {
        var literal = "{"
        for (position, value) in values.enumerated() {
            if position > 0 { literal.unicodeScalars.append(",") }
            guard let value else {
                literal += "NULL"
                continue
            }
            literal.unicodeScalars.append("\"")
            for scalar in value.unicodeScalars {
                if scalar == "\0" {
                    throw PostgreSQLError(sqlState: "22021", message: "a text value holds a NUL character", sql: sql)
                }
                if scalar == "\"" || scalar == "\\" { literal.unicodeScalars.append("\\") }
                literal.unicodeScalars.append(scalar)
            }
            literal.unicodeScalars.append("\"")
        }
        literal.unicodeScalars.append("}")
        try set(Parameter(type: Self.textArrayType, bytes: textBytes(literal), isBinary: false), at: index)
    }

    private func typedNull(_ type: Oid, at index: Int32) throws {
        try set(Parameter(type: type, bytes: nil, isBinary: false), at: index)
    }

    // MARK: Stepping

    /// Advances to the next row: true when there is one to read, false when done.
    public func step() throws -> Bool {
        if result == nil { try execute() }
        guard row < rowCount else { return false }
        row += 1
        return row < rowCount
    }

    /// Forgets the result and every bound value, ready for the next use.
    public func reset() {
        rewind()
        for index in parameters.indices {
            parameters[index] = Parameter(type: 0, bytes: nil, isBinary: false)
        }
    }

    /// Forgets the result, keeping every bound value for the next run.
    public func rewind() {
        if let result { PQclear(result) }
        result = nil
        row = -1
        rowCount = 0
    }

    private func execute() throws {
        // First: reconnecting forgets the names this session had prepared.
        let handle = try connection.liveHandle()
        let types = parameters.map(\.type)
        let name = try preparedName(for: types)
        let count = parameters.count
        // One buffer per call for libpq's arrays of pointers; the values are the parameters'
        // own arrays, alive for the duration of the call.
        var values = [UnsafePointer<CChar>?](repeating: nil, count: count)
        var lengths = [Int32](repeating: 0, count: count)
        var formats = [Int32](repeating: 0, count: count)
        var buffers: [UnsafeMutableRawBufferPointer] = []
        defer { buffers.forEach { $0.deallocate() } }
        for (index, parameter) in parameters.enumerated() {
            guard let bytes = parameter.bytes else { continue }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            buffers.append(buffer)
            buffer.copyBytes(from: bytes)
            values[index] = UnsafePointer(buffer.baseAddress!.assumingMemoryBound(to: CChar.self))
            lengths[index] = Int32(bytes.count)
            formats[index] = parameter.isBinary ? 1 : 0
        }
        let executed = name.withCString { name in
            PQexecPrepared(handle, name, Int32(count), values, lengths, formats, 0)
        }
        try adopt(executed, handle: handle)
    }

    private func preparedName(for types: [Oid]) throws -> String {
        if let name = preparedNames[types] { return name }
        let name = connection.nextStatementName()
        let handle = try connection.liveHandle()
        let prepared = types.withUnsafeBufferPointer { types in
            PQprepare(handle, name, text, Int32(types.count), types.baseAddress)
        }
        defer { PQclear(prepared) }
        guard let prepared, PQresultStatus(prepared) == PGRES_COMMAND_OK else {
            throw PostgreSQLError(result: prepared, connection: handle, sql: sql)
        }
        preparedNames[types] = name
        return name
    }

    private func adopt(_ executed: OpaquePointer?, handle: OpaquePointer) throws {
        guard let executed else { throw PostgreSQLError(result: nil, connection: handle, sql: sql) }
        switch PQresultStatus(executed) {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
            result = executed
            row = -1
            rowCount = PQntuples(executed)
            connection.changes = Int(String(cString: PQcmdTuples(executed))) ?? 0
        default:
            let error = PostgreSQLError(result: executed, connection: handle, sql: sql)
            PQclear(executed)
            throw error
        }
    }

    /// Frees this statement's prepared names on the server: for a one-off statement, which
    /// the connection does not keep (a cached one lives as long as its session).
    func deallocatePrepared() {
        for name in preparedNames.values {
            try? connection.execute("DEALLOCATE \(PostgreSQLConnection.quoteIdentifier(name))")
        }
        preparedNames = [:]
    }

    /// Forgets the names prepared on a connection that was reset (the server forgot them).
    func forgetPrepared() {
        reset()
        preparedNames = [:]
    }

    // MARK: Reading the current row

    private func value(_ column: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard let result, row >= 0, row < rowCount, column < PQnfields(result),
            PQgetisnull(result, row, column) == 0, let text = PQgetvalue(result, row, column)
        else { return nil }
        let count = Int(PQgetlength(result, row, column))
        return UnsafeBufferPointer(
            start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: count)
    }

    public func isNull(_ column: Int32) -> Bool {
        value(column) == nil
    }

    /// 0 for NULL, as SQLite reads it; a boolean column (EXISTS) reads as 1 or 0.
    public func int64(_ column: Int32) -> Int64 {
        guard let bytes = value(column), let first = bytes.first else { return 0 }
        if let result, PQftype(result, column) == Self.boolType {
            return first == UInt8(ascii: "t") ? 1 : 0
        }
        // Accumulated towards the sign, so that Int64.min (whose magnitude Int64 cannot hold)
        // reads too.
        let negative = first == UInt8(ascii: "-")
        var number: Int64 = 0
        for byte in bytes.dropFirst(negative ? 1 : 0) {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                break  // a numeric's fraction: SQLite's integer read truncates too
            }
            let digit = Int64(byte - UInt8(ascii: "0"))
            number = negative ? number &* 10 &- digit : number &* 10 &+ digit
        }
        return number
    }

    /// Nil for SQL NULL.
    public func string(_ column: Int32) -> String? {
        value(column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Nil for SQL NULL. bytea arrives as text in PostgreSQL's hex format, `\x0a1b…`.
    public func blob(_ column: Int32) -> [UInt8]? {
        guard let text = value(column) else { return nil }
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x") else {
            return Array(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((text.count - 2) / 2)
        var index = 2
        while index + 1 < text.count {
            bytes.append(Self.nibble(text[index]) << 4 | Self.nibble(text[index + 1]))
            index += 2
        }
        return bytes
    }

    /// PostgreSQL writes only hex digits here; anything else reads as 0, as before.
    private static func nibble(_ digit: UInt8) -> UInt8 {
        Hex.value(ofDigit: digit) ?? 0
    }
}

extension PostgreSQLStatement: SQLRow {}
