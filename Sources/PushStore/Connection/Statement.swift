import CSQLite
import Glibc

/// A prepared SQL statement on one connection: typed binds, stepping, typed column reads.
/// Parameters and columns are numbered as SQLite numbers them (parameters from 1, columns
/// from 0). Get one from `Database.withStatement`, which caches and resets it.
public final class Statement {
    let handle: OpaquePointer
    public let sql: String
    /// Set while a caller holds this (cached) statement, so that a nested use of the same
    /// SQL gets its own statement instead of resetting the one being stepped.
    var isInUse = false

    init(handle: OpaquePointer, sql: String) {
        self.handle = handle
        self.sql = sql
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    public func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    public func bind(_ value: String, at index: Int32) throws {
        var text = value
        // withUTF8 gives the bytes without a copy when the string is native; the shim binds
        // with SQLITE_TRANSIENT, so SQLite copies them before the buffer goes away.
        let code = text.withUTF8 { buffer -> Int32 in
            // A null pointer would bind SQL NULL: an empty string needs a real address.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return pushgate_sqlite3_bind_text(handle, index, "", 0)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                pushgate_sqlite3_bind_text(handle, index, $0, Int32(buffer.count))
            }
        }
        try check(code)
    }

    public func bind(_ value: [UInt8], at index: Int32) throws {
        let code = value.withUnsafeBytes { buffer -> Int32 in
            // As for text: a null pointer would bind NULL, not an empty blob.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return pushgate_sqlite3_bind_blob(handle, index, base, Int32(buffer.count))
        }
        try check(code)
    }

    public func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index))
    }

    public func bind(_ value: Int64?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    public func bind(_ value: String?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    public func bind(_ value: [UInt8]?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }

    // MARK: Stepping

    /// Advances to the next row: true when there is one to read, false when done.
    public func step() throws -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let code: throw error(code)
        }
    }

    /// Forgets the current row and every bound value, ready for the next use. The error of a
    /// failed step was thrown by `step` already; `sqlite3_reset` only repeats it.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Forgets the current row, keeping every bound value for the next run.
    func rewind() {
        sqlite3_reset(handle)
    }

    // MARK: Reading the current row

    public func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    public func int64(_ column: Int32) -> Int64 {
        sqlite3_column_int64(handle, column)
    }

    /// Nil for SQL NULL.
    public func string(_ column: Int32) -> String? {
        // Text first, then its length: that is the order SQLite documents as safe.
        guard let text = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// In place: SQLite's own copy of the value, compared without making a `String`.
    public func text(_ column: Int32, is text: String) -> Bool {
        guard let stored = sqlite3_column_text(handle, column) else { return false }
        let count = Int(sqlite3_column_bytes(handle, column))
        var text = text
        return text.withUTF8 { expected in
            expected.count == count && (count == 0 || memcmp(expected.baseAddress!, stored, count) == 0)
        }
    }

    public func blob(_ column: Int32, is bytes: [UInt8]) -> Bool {
        if isNull(column) { return false }
        let stored = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return bytes.withUnsafeBytes { expected in
            expected.count == count && (count == 0 || memcmp(expected.baseAddress!, stored!, count) == 0)
        }
    }

    /// Nil for SQL NULL; an empty blob is `[]`.
    public func blob(_ column: Int32) -> [UInt8]? {
        if isNull(column) { return nil }
        // Blob first, then its length, as for text.
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    // MARK: Errors

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw error(code) }
    }

    private func error(_ code: Int32) -> DatabaseError {
        DatabaseError(code: code, connection: sqlite3_db_handle(handle), sql: sql)
    }
}
