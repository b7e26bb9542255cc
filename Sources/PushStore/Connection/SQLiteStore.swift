import Foundation
import PushCore

/// Every store protocol on one SQLite file, for every thread of the process: each call reads
/// on a connection of the store's `ReaderPool` that no other thread is using (WAL lets them
/// read in parallel), and with a `GroupCommitWriter` every write transaction goes to the
/// writer's one connection, committed together with other threads' writes.
final class SQLiteStore: @unchecked Sendable {
    // @unchecked: a pooled connection is used by one caller at a time (see ReaderPool).
    private let readers: ReaderPool
    private let writer: GroupCommitWriter?
    let clock: @Sendable () -> Int64
    let recentApps = RecentApps()

    /// Opens (creating if needed) the database at `path`. It does not migrate: call
    /// `migrate()` once at start-up, before the threads open their stores.
    /// - Parameters:
    ///   - busyTimeoutMilliseconds: how long a write waits for another process's write lock.
    ///   - writer: pass the same writer, opened on the same file, to every store of this
    ///     process; without one (the CLI's single store) writes run on this connection.
    ///   - clock: unix seconds for created_at/updated_at; tests pass a fixed one.
    public init(
        path: String, busyTimeoutMilliseconds: Int = 5000, synchronous: Database.Synchronous = .normal,
        writer: GroupCommitWriter? = nil, autoCheckpoint: Bool = true,
        clock: @escaping @Sendable () -> Int64 = SQLiteStore.unixTime
    ) throws {
        let open = {
            try Database(
                path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, synchronous: synchronous,
                autoCheckpoint: autoCheckpoint)
        }
        readers = ReaderPool(first: try open(), open: open)
        self.writer = writer
        self.clock = clock
    }

    /// Seconds since 1970, the unit of every timestamp column.
    @Sendable public static func unixTime() -> Int64 {
        Int64(Date().timeIntervalSince1970)
    }

    /// Applies the pending built-in migrations (`sql/sqlite/`, compiled in); returns the file
    /// names applied. It runs on this store's connection, outside any shared writer: a
    /// writer's batches then wait for it in SQLite's busy handler, which start-up can afford.
    @discardableResult
    public func migrate() throws -> [String] {
        try withDatabase { try Migrator.migrate(database: $0, now: clock) }
    }

    /// Applies the pending migrations of `directory` instead of the built-in ones (tests).
    @discardableResult
    public func migrate(directory: URL) throws -> [String] {
        try withDatabase { try Migrator.migrate(database: $0, directory: directory, now: clock) }
    }

    /// A PASSIVE WAL checkpoint on this connection (see `Database.checkpoint()`), for the
    /// process that turned automatic checkpoints off on its other connections.
    @discardableResult
    public func checkpoint() throws -> (walFrames: Int, checkpointed: Int) {
        try withDatabase { try $0.checkpoint() }
    }

    /// Flushes the database file and the WAL to disk (see `Database.flushToDisk()`).
    public func flushToDisk() throws {
        try withDatabase { try $0.flushToDisk() }
    }

    func withDatabase<T>(_ body: (Database) throws -> T) throws -> T {
        let database = try readers.checkOut()
        defer { readers.checkIn(database) }
        return try Self.busyIsUnavailable { try body(database) }
    }

    /// Another process (a `pushgate` command, a backup) held the write lock past the busy
    /// timeout: the call did nothing and may work in a moment, which callers answer as they
    /// answer a database that went away (503 with `Retry-After`).
    static func busyIsUnavailable<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError where error.isBusy {
            throw StoreUnavailable(reason: error.description)
        }
    }

    /// One write transaction: on the shared writer's connection when the store has one
    /// (possibly committed together with other threads' writes), otherwise on a pooled
    /// connection. Either way it returns only once `body`'s changes are
    /// committed. `body` may run twice (see `GroupCommitWriter.write`) and must not call
    /// `write` again: that would wait for itself.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        // The commit waits on the disk (or on another thread's batch): other requests run meanwhile.
        try OutsideWait.run {
            if let writer { return try Self.busyIsUnavailable { try writer.write(body) } }
            return try withDatabase { database in try database.writeTransaction { try body(database) } }
        }
    }

    /// One read snapshot on a pooled connection.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        try withDatabase { database in try database.readTransaction { try body(database) } }
    }
}
