import CSQLite

/// A failed SQLite call, with what an operator needs to tell why: the result codes, SQLite's
/// message and the SQL that was running. Values are always bound, so the SQL holds no secret.
public struct DatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    public var resultCode: Int32
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, …); equals `resultCode` when
    /// SQLite gave no detail.
    public var extendedResultCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`), or the code's generic text.
    public var message: String
    /// The statement or script that failed; nil for connection-level calls such as opening.
    public var sql: String?

    public init(extendedResultCode: Int32, message: String, sql: String? = nil) {
        self.resultCode = extendedResultCode & 0xFF
        self.extendedResultCode = extendedResultCode
        self.message = message
        self.sql = sql
    }

    /// Reads the message of the last failure on `connection`; call it right after the failing
    /// call, before anything else runs on that connection.
    init(code: Int32, connection: OpaquePointer?, sql: String?) {
        let message = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
        self.init(
            extendedResultCode: code,
            message: message ?? String(cString: sqlite3_errstr(code)),
            sql: sql
        )
    }

    /// A statement that ran but did not do what its SQL promises (say, no row from RETURNING).
    static func unexpected(_ message: String, sql: String) -> DatabaseError {
        DatabaseError(extendedResultCode: SQLITE_ERROR, message: message, sql: sql)
    }

    /// Another writer held the lock for longer than the busy timeout.
    public var isBusy: Bool { resultCode == SQLITE_BUSY || resultCode == SQLITE_LOCKED }

    /// A UNIQUE, CHECK, NOT NULL or foreign key constraint refused the write.
    public var isConstraintViolation: Bool { resultCode == SQLITE_CONSTRAINT }

    public var description: String {
        var text = "SQLite error \(resultCode)"
        if extendedResultCode != resultCode {
            text += " (extended \(extendedResultCode))"
        }
        text += ": \(message)"
        if let sql {
            // One line, so that a log entry stays one entry.
            text += " — while running: \(sql.split(whereSeparator: \.isWhitespace).joined(separator: " "))"
        }
        return text
    }
}
