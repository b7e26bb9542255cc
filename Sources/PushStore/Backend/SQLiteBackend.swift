import Foundation

/// The store in one SQLite file on this host. Each store has a connection of its own; in
/// serve they all write through one group-commit writer, and a checkpointer keeps the WAL
/// short.
struct SQLiteBackend: StoreBackend {
    let path: String
    let busyTimeoutMilliseconds: Int
    let synchronous: Database.Synchronous

    var databaseDescription: String { path }
    var databaseFile: String? { path }
    /// One file, one host: a starting worker may take back every claim it finds.
    var isSharedByNodes: Bool { false }

    /// serve's responder threads when the operator sets none. A Token Reporter report waits
    /// on its thread for the group commit, and requests parse while the writer's batch runs,
    /// so more threads put more reports in the next batch; beyond 24 the report benchmark gave
    /// no more (docs/performance.md).
    static let responderThreads = 24

    func migrate() throws -> [String] {
        try openFileStore(migrating: false, creating: true).migrate()
    }

    func openStore(migrating: Bool, creating: Bool) throws -> any BackendStore {
        try openFileStore(migrating: migrating, creating: creating)
    }

    func serving(metrics: GroupCommitMetrics, warn: @escaping @Sendable (String) -> Void) throws -> any ServedDatabase {
        // Every connection of serve leaves WAL checkpoints to the checkpointer's thread.
        try requireDatabase()
        let writer = try GroupCommitWriter(
            path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, synchronous: synchronous,
            autoCheckpoint: false, metrics: metrics)
        let store = try openFileStore(migrating: false, writer: writer, autoCheckpoint: false)
        let checkpointer = WALCheckpointer(store: store, writer: writer) { error in
            warn("WAL checkpoint failed, the WAL grows until one succeeds: \(error)")
        }
        return SQLiteServedDatabase(writer: writer, checkpointer: checkpointer, sqliteStore: store)
    }

    func checkup() -> StoreCheckup {
        let database = DatabaseCheck(
            path: path, migrations: Result { try Migration.builtIn(for: .sqlite) },
            busyTimeoutMilliseconds: busyTimeoutMilliseconds
        ).run()
        var checkup = StoreCheckup(findings: database.findings, latestRecordedTime: database.latestRecordedTime)
        if database.isUsable {
            do {
                let store = try SQLiteStore(path: path)
                checkup.apps = try store.apps()
                checkup.senderKeys = try store.senderKeys()
                checkup.readAppProblems(from: store)
                checkup.readDatabaseSize(from: store)
            } catch {
                checkup.findings.append(.problem("apps", "cannot read the registered apps: \(error)"))
            }
        }
        return checkup
    }

    /// A store on its own connection, with the schema brought up to date first. Stores of one
    /// process may share `writer`, so their writes are committed in batches on one
    /// connection; without one, a store writes on its own connection. `autoCheckpoint: false`
    /// is for serve, whose `WALCheckpointer` does them instead.
    private func openFileStore(
        migrating: Bool, creating: Bool = false, writer: GroupCommitWriter? = nil, autoCheckpoint: Bool = true
    ) throws -> SQLiteStore {
        if creating {
            try makeParentDirectory()
        } else {
            try requireDatabase()
        }
        let store = try SQLiteStore(
            path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, synchronous: synchronous, writer: writer,
            autoCheckpoint: autoCheckpoint)
        if migrating { try store.migrate() }
        return store
    }

    /// A command run from another directory than the checkout would otherwise create a new,
    /// empty database beside it (PUSHGATE_DB is relative by default) and work on that one.
    private func requireDatabase() throws {
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let named = absolute == path ? "" : " (PUSHGATE_DB=\(path), from \(FileManager.default.currentDirectoryPath))"
        throw MissingDatabase(
            description:
                "no database at \(absolute)\(named): set PUSHGATE_DB (or --config FILE) to the database's path, "
                + "or run `pushgate migrate` to create a new one there")
    }

    private func makeParentDirectory() throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    }
}
