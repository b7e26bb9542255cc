/// Where and how the store connects to PostgreSQL.
public struct PostgreSQLConfiguration: Sendable, Equatable {
    /// A libpq connection string or URI (`postgresql://user@host/db`, `host=/run/pg dbname=x`).
    public var url: String
    /// The schema the store's tables live in (its `search_path`); nil: the server's default.
    public var schema: String?
    /// Connections each process opens at most; a thread borrows one per call or transaction.
    public var poolSize: Int
    /// How long connecting may take before it fails (libpq's `connect_timeout`).
    public var connectTimeoutSeconds: Int
    /// The longest a single statement may run (`statement_timeout`): a stuck query fails
    /// instead of holding a pooled connection and its locks forever.
    public var statementTimeoutMilliseconds: Int
    /// The longest a transaction may sit idle (`idle_in_transaction_session_timeout`): a
    /// thread that died mid-transaction cannot keep its row locks.
    public var idleInTransactionTimeoutMilliseconds: Int

    public init(
        url: String, schema: String? = nil, poolSize: Int = 4, connectTimeoutSeconds: Int = 10,
        statementTimeoutMilliseconds: Int = 30_000, idleInTransactionTimeoutMilliseconds: Int = 60_000
    ) {
        self.url = url
        self.schema = schema
        self.poolSize = max(1, poolSize)
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
        self.idleInTransactionTimeoutMilliseconds = idleInTransactionTimeoutMilliseconds
    }
}
