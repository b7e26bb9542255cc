import Foundation
import CLibPQ

/// One PostgreSQL connection (libpq), with a cache of prepared statements: each SQL text is
/// prepared once per connection and then only executed. Not thread-safe by design: a
/// `PostgreSQLPool` lends it to one thread at a time (libpq's rule for a `PGconn` too).
public final class PostgreSQLConnection {
    private let handle: OpaquePointer
    public let configuration: PostgreSQLConfiguration
    /// Prepared statements by the store's SQL text.
    private var statements: [String: PostgreSQLStatement] = [:]
    private var statementCount = 0
    /// Rows the last INSERT, UPDATE or DELETE changed (`PQcmdTuples`).
    public internal(set) var changes = 0
    /// Set by the transaction helpers between BEGIN and its end: a connection that broke
    /// inside a transaction must fail the rest of it, not reconnect and run it in autocommit.
    var isInsideTransaction = false

    /// Connects, then sets the session's timeouts and search path.
    public init(configuration: PostgreSQLConfiguration) throws {
        self.configuration = configuration
        // libpq reads these in order and the last value of a keyword wins; the URL is expanded
        // where `dbname` stands (expand_dbname). So the defaults before it are overridden by
        // what the URL says (an operator's own connect_timeout for a quicker failover between
        // the hosts of a multi-host URL), and the encoding after it is always ours. Every host
        // of a multi-host URL, and its target_session_attrs, reach libpq untouched.
        let settings: [(String, String)] = [
            // Per host tried: a host that does not answer costs this long before the next.
            ("connect_timeout", String(configuration.connectTimeoutSeconds)),
            // A dead peer (a server that vanished without a FIN) is noticed within a minute
            // or two instead of the kernel's two hours.
            ("keepalives", "1"),
            ("keepalives_idle", "30"),
            ("keepalives_interval", "10"),
            ("keepalives_count", "3"),
            // A statement sent to a server that vanished mid-call (a host gone, a cut network:
            // nothing answers, not even a reset) fails once it goes unacknowledged this long,
            // instead of holding the request until the keepalives notice (TCP only).
            ("tcp_user_timeout", String(configuration.connectTimeoutSeconds * 1000)),
            ("application_name", "pushgate"),
            ("dbname", configuration.url),
            ("client_encoding", "UTF8"),
        ]
        let connection = Self.connect(settings)
        guard let connection, PQstatus(connection) == CONNECTION_OK else {
            let error = PostgreSQLError(
                sqlState: "08001",
                message: connection.flatMap { PQerrorMessage($0) }.map { String(cString: $0) }
                    .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "out of memory",
                sql: nil)
            if let connection { PQfinish(connection) }
            throw error
        }
        handle = connection
        // From here on a throw runs deinit, which closes the connection.
        try configureSession()
    }

    private static func connect(_ settings: [(String, String)]) -> OpaquePointer? {
        var keywords = settings.map { strdup($0.0) }
        var values = settings.map { strdup($0.1) }
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        keywords.append(nil)
        values.append(nil)
        return keywords.map { UnsafePointer($0) }.withUnsafeBufferPointer { keywords in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { values in
                PQconnectdbParams(keywords.baseAddress, values.baseAddress, 1)
            }
        }
    }

    /// Settings are plain SQL literals from numbers and an identifier quoted here, never input.
    /// The isolation default is PostgreSQL's own, set in case the server's configuration
    /// changed it: a statement run outside BEGIN (`lockingWriteStatement`) relies on it.
    private func configureSession() throws {
        var script = """
            SET statement_timeout = \(configuration.statementTimeoutMilliseconds);
            SET idle_in_transaction_session_timeout = \(configuration.idleInTransactionTimeoutMilliseconds);
            SET TIME ZONE 'UTC';
            SET default_transaction_isolation = 'read committed';
            SET client_min_messages = warning;
            """
        if let schema = configuration.schema {
            script += " SET search_path = \(Self.quoteIdentifier(schema));"
        }
        try execute(script)
    }

    deinit {
        statements.removeAll()
        PQfinish(handle)
    }

    /// `name` as a quoted SQL identifier (doubled quotes inside).
    public static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The handle, reconnected first when the connection broke (a restarted server, a cut
    /// network): the statements it had prepared are gone with the old session.
    func liveHandle() throws -> OpaquePointer {
        if PQstatus(handle) != CONNECTION_OK {
            guard !isInsideTransaction else {
                throw PostgreSQLError(
                    sqlState: "08006", message: "the connection broke inside a transaction, which is lost", sql: nil)
            }
            PQreset(handle)
            guard PQstatus(handle) == CONNECTION_OK else {
                throw PostgreSQLError(result: nil, connection: handle, sql: nil)
            }
            for statement in statements.values { statement.forgetPrepared() }
            try configureSession()
        }
        return handle
    }

    /// False once the connection broke; the pool then drops it.
    var isHealthy: Bool { PQstatus(handle) == CONNECTION_OK }

    /// Whether an idle connection still reaches its server, found without a round trip: when
    /// the server sent something meanwhile (its "terminating connection" before closing, at a
    /// shutdown or restart), libpq reads it and the end of the stream behind it, and marks
    /// the connection bad. A connection with nothing to read costs one `poll`.
    func isStillConnected() -> Bool {
        guard PQstatus(handle) == CONNECTION_OK else { return false }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return true }
        // Twice: the first read may stop after the server's message, the second finds the end.
        for _ in 0..<2 where PQconsumeInput(handle) == 0 {
            return false
        }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// True between BEGIN and COMMIT/ROLLBACK, including a transaction a failure aborted.
    public var isInTransaction: Bool {
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    func nextStatementName() -> String {
        statementCount += 1
        return "pushgate_\(statementCount)"
    }

    /// Runs `script`: one or more statements without parameters (migrations, settings),
    /// through the simple query protocol.
    public func execute(_ script: String) throws {
        let handle = try liveHandle()
        guard let result = PQexec(handle, script) else {
            throw PostgreSQLError(result: nil, connection: handle, sql: script)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        default:
            throw PostgreSQLError(result: result, connection: handle, sql: script)
        }
    }

    /// Calls `body` with the prepared statement for `sql` (SQLite-style placeholders), from
    /// the cache when possible, and resets it afterwards.
    public func withStatement<T>(_ sql: String, _ body: (PostgreSQLStatement) throws -> T) throws -> T {
        let statement: PostgreSQLStatement
        var isOneOff = false
        switch statements[sql] {
        case let cached? where !cached.isInUse:
            statement = cached
        case nil:
            statement = PostgreSQLStatement(connection: self, sql: sql)
            statements[sql] = statement
        case _?:
            // The same SQL is being stepped further up the stack: a one-off with its own name,
            // freed on the server afterwards.
            statement = PostgreSQLStatement(connection: self, sql: sql)
            isOneOff = true
        }
        statement.isInUse = true
        defer {
            statement.reset()
            statement.isInUse = false
            if isOneOff { statement.deallocatePrepared() }
        }
        return try body(statement)
    }

    /// Runs one statement without parameters, ignoring any rows.
    public func run(_ sql: String) throws {
        try execute(sql)
    }
}

extension PostgreSQLConnection: SQLConnection {
    static var engine: SQLEngine { .postgresql }

    /// `lastval()`: the last value this session took from a sequence, which is the id an
    /// INSERT into an identity column just made (no trigger takes one in this schema).
    func lastInsertedID() throws -> Int64 {
        try withStatement("SELECT lastval()") { row in
            guard try row.step() else { throw PostgreSQLError.unexpected("lastval() returned no row", sql: row.sql) }
            return row.int64(0)
        }
    }
}
