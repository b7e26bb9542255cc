import Foundation
import CLibPQ

/// A failed PostgreSQL call, with what an operator needs to tell why: the SQLSTATE, the
/// server's (or libpq's) message and the SQL that was running. Values are always bound, so
/// the SQL holds no secret.
public struct PostgreSQLError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The five-character SQLSTATE (`23505`, `40001`, …); empty when the failure was the
    /// connection's own (libpq gives no SQLSTATE when it cannot reach the server).
    public var sqlState: String
    public var message: String
    /// The statement that failed; nil for connection-level calls such as connecting.
    public var sql: String?

    public init(sqlState: String, message: String, sql: String? = nil) {
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// The error of a failed `result` (or, without one, of the connection); call it before
    /// anything else runs on `connection`.
    init(result: OpaquePointer?, connection: OpaquePointer?, sql: String?) {
        func field(_ code: UInt8) -> String? {
            guard let result, let text = PQresultErrorField(result, Int32(code)) else { return nil }
            return String(cString: text)
        }
        let state = field(UInt8(ascii: "C")) ?? ""
        var message = field(UInt8(ascii: "M"))
        if message == nil, let result, let text = PQresultErrorMessage(result), text.pointee != 0 {
            message = String(cString: text)
        }
        if message == nil, let connection, let text = PQerrorMessage(connection) {
            message = String(cString: text)
        }
        self.init(
            sqlState: state,
            message: (message ?? "unknown error").trimmingCharacters(in: .whitespacesAndNewlines),
            sql: sql)
    }

    /// A statement that ran but did not do what its SQL promises (say, no row from RETURNING).
    static func unexpected(_ message: String, sql: String?) -> PostgreSQLError {
        PostgreSQLError(sqlState: "XX000", message: message, sql: sql)
    }

    /// Another transaction's writes made this one's impossible to serialize (40001) or the
    /// two deadlocked (40P01): running the whole transaction again is the documented answer.
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// The database could not be reached or would not serve the call, which may work later:
    /// a connection failure (class 08), the server shutting down (57P01 admin_shutdown,
    /// 57P02 crash_shutdown) or not accepting connections yet (57P03 cannot_connect_now), or
    /// a statement that ran past `statement_timeout` (57014: a lock held too long, an
    /// overloaded server).
    public var isUnavailability: Bool {
        sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "57014"].contains(sqlState)
    }

    /// A UNIQUE, CHECK, NOT NULL, exclusion or foreign key constraint refused the write.
    public var isConstraintViolation: Bool { sqlState.hasPrefix("23") }

    public var description: String {
        var text = "PostgreSQL error"
        if !sqlState.isEmpty { text += " \(sqlState)" }
        text += ": \(message)"
        if let sql {
            // One line, so that a log entry stays one entry.
            text += " — while running: \(sql.split(whereSeparator: \.isWhitespace).joined(separator: " "))"
        }
        return text
    }
}
