import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// One SQLite connection, configured the way pushgate needs it (WAL, foreign keys, a busy
/// timeout), with a cache of prepared statements. Not thread-safe by design: one thread uses
/// it at a time (a `ReaderPool` lends it to one reader, the writer keeps its own), so SQLite's
/// own mutex is left off.
public final class Database {
    /// How hard SQLite pushes commits to disk (`PRAGMA synchronous`).
    public enum Synchronous: String, Sendable, CaseIterable {
        /// In WAL mode a power loss may lose the last commits but never corrupts: the usual
        /// choice for a token store, where a lost report is repeated by the phone.
        case normal = "NORMAL"
        /// Every commit is on disk before it returns.
        case full = "FULL"
    }

    let handle: OpaquePointer
    public let path: String
    /// How long a writer waits for another connection's write lock (`PRAGMA busy_timeout`
    /// reads 0: the wait is `BusyWait`'s, not SQLite's built-in one).
    public let busyTimeoutMilliseconds: Int
    /// The connection's busy handler; SQLite points at it unretained, so it lives here.
    private let busyWait: BusyWait
    /// Prepared statements by SQL text, so that hot paths prepare each statement once.
    private var statements: [StatementKey: Statement] = [:]

    /// SQLite's process-wide settings, made once before the first connection opens (they
    /// cannot change after). Memory statistics off: they cost a global mutex per allocation,
    /// seen as a few percent of every busy thread's time.
    private static let processConfiguration: Void = {
        _ = pushgate_sqlite3_disable_memory_statistics()
    }()

    /// Creates a missing database file with mode 0600 before SQLite opens it. SQLite would
    /// make it 0644, readable by every local user, and gives its `-wal` and `-shm` files the
    /// database file's mode: the store holds APNs keys, service accounts and password hashes.
    /// A file already there is left as it is (its mode is doctor's to judge); any other
    /// failure (a missing folder, no permission) SQLite reports as it opens.
    static func createPrivately(_ path: String) {
        guard path != ":memory:", !path.isEmpty, !path.hasPrefix("file:") else { return }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Opens (creating it if needed) the database at `path`.
    /// - Parameters:
    ///   - busyTimeoutMilliseconds: how long a writer waits for another connection's write
    ///     lock before failing with `SQLITE_BUSY`.
    ///   - autoCheckpoint: false leaves WAL checkpoints to `checkpoint()`, called by a
    ///     background thread, instead of the commit that crosses 1000 pages: a checkpoint
    ///     syncs the database file, which is the slowest thing a request could wait for.
    public init(
        path: String, busyTimeoutMilliseconds: Int = 5000, synchronous: Synchronous = .normal,
        autoCheckpoint: Bool = true
    ) throws {
        _ = Self.processConfiguration
        Self.createPrivately(path)
        var connection: OpaquePointer?
        // NOMUTEX: a connection is only ever used by one thread at a time (the store's lock
        // makes sure), so SQLite's per-call mutex would be pure cost.
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            var error = DatabaseError(code: code, connection: connection, sql: nil)
            error.message += " (opening \(path))"
            sqlite3_close_v2(connection)
            throw error
        }
        handle = connection
        self.path = path
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        busyWait = BusyWait(timeoutMilliseconds: busyTimeoutMilliseconds)
        // From here on a throw runs deinit, which closes the connection.
        sqlite3_extended_result_codes(handle, 1)
        // Set before switching to WAL: that switch itself may wait for other connections.
        busyWait.install(on: handle)
        // WAL: readers never block the writer nor the writer the readers, and a commit is one
        // append. The mode is stored in the file; asking again on an open is a cheap no-op.
        try execute("PRAGMA journal_mode = WAL")
        // Off by default in SQLite, per connection: the schema's ON DELETE CASCADE needs it.
        try execute("PRAGMA foreign_keys = ON")
        // A PRAGMA value cannot be bound; it comes from the enum, never from input.
        try execute("PRAGMA synchronous = \(synchronous.rawValue)")
        if !autoCheckpoint { try execute("PRAGMA wal_autocheckpoint = 0") }
    }

    /// Copies committed WAL frames into the database file without waiting for readers or
    /// writers (a PASSIVE checkpoint): what SQLite's automatic checkpoint does, on the
    /// caller's schedule. Returns the WAL's frames and how many of them are now checkpointed.
    @discardableResult
    public func checkpoint() throws -> (walFrames: Int, checkpointed: Int) {
        var frames: Int32 = 0
        var done: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &frames, &done)
        // BUSY: another connection is checkpointing right now; the next call catches up.
        guard code == SQLITE_OK || code == SQLITE_BUSY else {
            throw DatabaseError(code: code, connection: handle, sql: "wal_checkpoint(PASSIVE)")
        }
        return (Int(frames), Int(done))
    }

    /// Flushes what this connection's database file and WAL hold in the OS's cache to the
    /// disk (fdatasync, through SQLite's own file handles: a descriptor opened and closed
    /// here would drop the process's POSIX locks on the file).
    ///
    /// Why: a checkpoint syncs the database file only when it copied the WAL's last frame.
    /// Under a steady write load the checkpoints on their own connection never reach it, so
    /// the first that does, the writer's (see `WALCheckpointer`), synced everything they had
    /// written since, while every write waited. Flushed here first, outside the writer, that
    /// sync is left the few pages the writer's pass copies.
    public func flushToDisk() throws {
        // The WAL first: SQLite has it open once a transaction has read; before that it is an
        // unopened handle without methods, and nothing to flush.
        for (operation, name) in [(SQLITE_FCNTL_JOURNAL_POINTER, "the WAL"), (SQLITE_FCNTL_FILE_POINTER, "the database file")] {
            var file: UnsafeMutablePointer<sqlite3_file>?
            let code = sqlite3_file_control(handle, "main", operation, &file)
            guard code == SQLITE_OK else {
                throw DatabaseError(code: code, connection: handle, sql: "file_control (\(name))")
            }
            guard let file, let sync = file.pointee.pMethods?.pointee.xSync else { continue }
            let synced = sync(file, SQLITE_SYNC_NORMAL)
            guard synced == SQLITE_OK else {
                // A VFS call leaves no message on the connection: the code's own text it is.
                throw DatabaseError(
                    extendedResultCode: synced, message: String(cString: sqlite3_errstr(synced)),
                    sql: "fdatasync of \(name)")
            }
        }
    }

    deinit {
        // Finalize cached statements first; close_v2 defers the close until any statement
        // still held elsewhere is finalized too, instead of failing.
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs `script`: one or more statements without parameters (migrations, PRAGMAs).
    public func execute(_ script: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, script, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw DatabaseError(
                extendedResultCode: sqlite3_extended_errcode(handle),
                message: message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code)),
                sql: script
            )
        }
    }

    /// Calls `body` with the prepared statement for `sql`, from the cache when possible, and
    /// resets it afterwards: a statement left mid-way would keep a read snapshot open.
    public func withStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        let statement: Statement
        let key = StatementKey(sql: sql)
        switch statements[key] {
        case let cached? where !cached.isInUse:
            statement = cached
        case nil:
            statement = try prepare(sql, persistent: true)
            statements[key] = statement
        case _?:
            // The same SQL is being stepped further up the stack: use a one-off.
            statement = try prepare(sql, persistent: false)
        }
        statement.isInUse = true
        defer {
            statement.reset()
            statement.isInUse = false
        }
        return try body(statement)
    }

    /// Runs one statement, binding nothing and ignoring any rows.
    public func run(_ sql: String) throws {
        try withStatement(sql) { try $0.run() }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE (not counting cascades).
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The rowid of this connection's last successful INSERT.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// False between BEGIN and COMMIT/ROLLBACK.
    public var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    private func prepare(_ sql: String, persistent: Bool) throws -> Statement {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        // PERSISTENT tells SQLite the statement lives long, so it allocates it accordingly.
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sql.withCString { text -> Int32 in
            let code = sqlite3_prepare_v3(handle, text, -1, flags, &statement, &tail)
            // Only the first statement is compiled: text after it would silently not run.
            if code == SQLITE_OK, let tail, tail.pointee != 0,
                !String(cString: tail).allSatisfy({ $0.isWhitespace || $0 == ";" })
            {
                sqlite3_finalize(statement)
                statement = nil
                return SQLITE_MISUSE
            }
            return code
        }
        guard code == SQLITE_OK, let statement else {
            if code == SQLITE_OK || code == SQLITE_MISUSE {
                throw DatabaseError(
                    extendedResultCode: SQLITE_MISUSE, message: "expected exactly one SQL statement", sql: sql)
            }
            throw DatabaseError(code: code, connection: handle, sql: sql)
        }
        return Statement(handle: statement, sql: sql)
    }
}
