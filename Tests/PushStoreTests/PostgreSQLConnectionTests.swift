import PushTesting
import Foundation
import PushCore
import XCTest

@testable import PushStore

/// The placeholders PostgreSQL's connection rewrites (engine-independent), and, on a server,
/// what the connection and its pool promise: bound values of every type, SQLSTATEs with the
/// SQL, a connection lent to one thread at a time.
final class PostgreSQLConnectionTests: StoreTestCase {
    func testPlaceholdersAreNumberedAsSQLiteNumbersThem() {
        XCTAssertEqual(PostgreSQLPlaceholders.translate("SELECT ?, ?").text, "SELECT $1, $2")
        XCTAssertEqual(PostgreSQLPlaceholders.translate("SELECT ?2, ?1, ?").parameterCount, 3)
        XCTAssertEqual(PostgreSQLPlaceholders.translate("SELECT ?2, ?1, ?").text, "SELECT $2, $1, $3")
        XCTAssertEqual(PostgreSQLPlaceholders.translate("VALUES (?14, ?14)").parameterCount, 14)
        // Inside quotes and comments a question mark is text.
        let quoted = PostgreSQLPlaceholders.translate("SELECT '?', \"a?\" -- why?\n, ?1")
        XCTAssertEqual(quoted.text, "SELECT '?', \"a?\" -- why?\n, $1")
        XCTAssertEqual(quoted.parameterCount, 1)
    }

    private func connection() throws -> PostgreSQLConnection {
        try XCTSkipIf(Self.engine != .postgresql, "needs PUSHGATE_TEST_DATABASE_URL")
        return try PostgreSQLConnection(configuration: try XCTUnwrap(postgreSQLConfiguration))
    }

    func testEveryTypeRoundTripsAndNullsKeepTheirType() throws {
        let connection = try connection()
        let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xff]
        try connection.withStatement("SELECT ?1, ?2, ?3, ?4, ?5 IS NULL, ?6, ?7, ?8") { row in
            try row.bind(Int64.min, at: 1)
            try row.bind("quote ' and ? and ünïcode", at: 2)
            try row.bind(bytes, at: 3)
            try row.bind(true, at: 4)
            try row.bind(nil as Int64?, at: 5)
            try row.bind([UInt8](), at: 6)
            try row.bind("", at: 7)
            try row.bind(nil as String?, at: 8)
            XCTAssertTrue(try row.step())
            XCTAssertEqual(row.int64(0), Int64.min)
            XCTAssertEqual(row.string(1), "quote ' and ? and ünïcode")
            XCTAssertEqual(row.blob(2), bytes)
            XCTAssertEqual(row.bool(3), true)
            XCTAssertEqual(row.int64(4), 1, "EXISTS-like booleans read as 1")
            XCTAssertEqual(row.blob(5), [])
            XCTAssertEqual(row.string(6), "")
            XCTAssertNil(row.string(7))
            XCTAssertTrue(row.isNull(7))
            XCTAssertFalse(try row.step())
        }
    }

    func testErrorsCarryTheSQLStateAndTheSQL() throws {
        let connection = try connection()
        XCTAssertThrowsError(try connection.withStatement("SELECT 1 / ?") { row in
            try row.bind(0, at: 1)
            _ = try row.step()
        }) { error in
            let failure = error as? PostgreSQLError
            XCTAssertEqual(failure?.sqlState, "22012", "\(error)")
            XCTAssertEqual(failure?.sql, "SELECT 1 / ?")
        }
        // The connection and its cached statement are usable afterwards.
        let value = try connection.withStatement("SELECT 1 / ?") { row in
            try row.bind(1, at: 1)
            _ = try row.step()
            return row.int64(0)
        }
        XCTAssertEqual(value, 1)
    }

    /// The same SQL used inside its own use gets a one-off statement, so that the outer one's
    /// row survives; the one-off is freed on the server afterwards.
    func testTheSameSQLNestedIsAOneOffFreedAfterwards() throws {
        let connection = try connection()
        func prepared() throws -> Int64 {
            try connection.withStatement("SELECT count(*) FROM pg_prepared_statements") { row in
                _ = try row.step()
                return row.int64(0)
            }
        }
        let sql = "SELECT ?"
        try connection.withStatement(sql) { row in
            try row.bind(0, at: 1)
            try row.run()
        }
        _ = try prepared()
        let before = try prepared()
        try connection.withStatement(sql) { outer in
            try outer.bind(1, at: 1)
            XCTAssertTrue(try outer.step())
            try connection.withStatement(sql) { inner in
                try inner.bind(2, at: 1)
                XCTAssertTrue(try inner.step())
                XCTAssertEqual(inner.int64(0), 2)
            }
            XCTAssertEqual(outer.int64(0), 1, "the outer statement's row survives")
        }
        XCTAssertEqual(try prepared(), before)
    }

    /// PostgreSQL's text cannot hold NUL (SQLite's can): the server refuses it, rather than
    /// the string ending silently at the NUL.
    func testANulInTextIsRefusedNotCut() throws {
        let connection = try connection()
        XCTAssertThrowsError(try connection.withStatement("SELECT ?") { row in
            try row.bind("before\u{0}after", at: 1)
            _ = try row.step()
        }) { error in
            XCTAssertEqual((error as? PostgreSQLError)?.sqlState, "22021", "\(error)")
        }
    }

    /// A session killed inside a write transaction fails it: nothing it wrote is committed,
    /// and its later statements are not run on a fresh session outside the transaction.
    func testAConnectionLostMidTransactionCommitsNothing() throws {
        let victim = try connection()
        let admin = try connection()
        try victim.execute("CREATE TABLE t (x BIGINT)")
        let pid = try victim.withStatement("SELECT pg_backend_pid()") { row in
            _ = try row.step()
            return row.int64(0)
        }
        func insert(_ value: Int64) throws {
            try victim.withStatement("INSERT INTO t VALUES (?)") { row in
                try row.bind(value, at: 1)
                try row.run()
            }
        }
        XCTAssertThrowsError(
            try victim.writeTransaction {
                try insert(1)
                try admin.withStatement("SELECT pg_terminate_backend(CAST(? AS integer))") { row in
                    try row.bind(pid, at: 1)
                    try row.run()
                }
                // Until the server has ended the session (polled; no time is asserted).
                for _ in 0..<1000 {
                    let alive = try admin.withStatement("SELECT count(*) FROM pg_stat_activity WHERE pid = ?") { row in
                        try row.bind(pid, at: 1)
                        _ = try row.step()
                        return row.int64(0)
                    }
                    if alive == 0 { break }
                    usleep(10_000)
                }
                XCTAssertThrowsError(try insert(2), "the session is gone")
                // Caught or not, what follows must fail too, not run on a fresh session.
                try insert(3)
            }) { error in
                XCTAssertEqual((error as? PostgreSQLError)?.sqlState, "08006", "\(error)")
            }
        XCTAssertEqual(try count("t", in: admin), 0)
    }

    /// Outside a transaction a broken session is replaced: the statement that finds it gone
    /// fails, the next one reconnects and prepares its statement again.
    func testAConnectionLostBetweenStatementsReconnects() throws {
        let victim = try connection()
        let admin = try connection()
        func backend() throws -> Int64 {
            try victim.withStatement("SELECT pg_backend_pid()") { row in
                _ = try row.step()
                return row.int64(0)
            }
        }
        let pid = try backend()
        try admin.withStatement("SELECT pg_terminate_backend(CAST(? AS integer))") { row in
            try row.bind(pid, at: 1)
            try row.run()
        }
        for _ in 0..<1000 {
            let alive = try admin.withStatement("SELECT count(*) FROM pg_stat_activity WHERE pid = ?") { row in
                try row.bind(pid, at: 1)
                _ = try row.step()
                return row.int64(0)
            }
            if alive == 0 { break }
            usleep(10_000)
        }
        XCTAssertThrowsError(try backend(), "the session is gone")
        XCTAssertNotEqual(try backend(), pid, "a new session")
    }

    func testAWriteTransactionRollsBackWhenItsBodyThrows() throws {
        let connection = try connection()
        try connection.execute("CREATE TABLE t (x BIGINT)")
        struct Refused: Error {}
        XCTAssertThrowsError(
            try connection.writeTransaction {
                try connection.withStatement("INSERT INTO t VALUES (?)") { row in
                    try row.bind(1, at: 1)
                    try row.run()
                }
                throw Refused()
            })
        XCTAssertFalse(connection.isInTransaction)
        XCTAssertEqual(try count("t", in: connection), 0)
    }

    /// A pool of two lends each connection to one thread at a time: eight threads each
    /// holding one in a transaction never share one, and no more than two are ever opened.
    func testThePoolLendsEachConnectionToOneThreadAtATime() throws {
        _ = try connection()
        var configuration = try XCTUnwrap(postgreSQLConfiguration)
        configuration.poolSize = 2
        let pool = PostgreSQLPool(configuration: configuration)
        let inUse = Locked<Set<ObjectIdentifier>>([])
        let seen = Locked<Set<ObjectIdentifier>>([])
        let problems = Locked<[String]>([])
        let done = DispatchGroup()
        for _ in 0..<8 {
            done.enter()
            Thread {
                defer { done.leave() }
                for _ in 0..<20 {
                    do {
                        try pool.withConnection { connection in
                            let id = ObjectIdentifier(connection)
                            _ = seen.withLock { $0.insert(id) }
                            let fresh = inUse.withLock { $0.insert(id).inserted }
                            if !fresh { problems.withLock { $0.append("lent twice") } }
                            defer { _ = inUse.withLock { $0.remove(id) } }
                            try connection.readTransaction {
                                try connection.withStatement("SELECT pg_backend_pid()") { _ = try $0.step() }
                            }
                        }
                    } catch {
                        problems.withLock { $0.append("\(error)") }
                    }
                }
            }.start()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(problems.withLock { $0 }, [])
        XCTAssertEqual(inUse.withLock { $0.count }, 0)
        XCTAssertLessThanOrEqual(seen.withLock { $0.count }, 2, "the pool opened more than its size")
    }
}
