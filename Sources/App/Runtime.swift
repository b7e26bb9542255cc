import Foundation
import Logging
import PushCore
import PushStore

/// What a command gets from `Runtime.openStore`, on either engine: every store protocol, and
/// the migration history readiness reads.
typealias Store = PushgateStore & MigrationHistory

/// What a command needs to start: the effective configuration, a logger, and the store.
struct Runtime {
    let configuration: Configuration
    let logger: Logger
    /// The process's one PostgreSQL store when PUSHGATE_DATABASE_URL is set: every thread
    /// shares it, and its pool holds the process's connections. It connects when first used.
    let postgreSQLStore: PostgreSQLStore?
    /// The configuration file read (`--config` or PUSHGATE_CONFIG), nil when the settings come
    /// from the environment and the defaults only.
    let configurationFile: String?

    init(_ options: GlobalOptions, label: String = "pushgate") throws {
        let environment = ProcessInfo.processInfo.environment
        configurationFile = options.config ?? environment["PUSHGATE_CONFIG"]
        let file = try configurationFile.map { path throws in
            try ConfigurationFile(path: path)
        }
        let (configuration, warnings) = try Configuration.load(file: file, environment: environment)
        self.configuration = configuration
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: level) }
        var logger = Logger(label: label)
        logger.logLevel = level
        self.logger = logger
        postgreSQLStore = configuration.databaseURL.map { [logger] url in
            PostgreSQLStore(
                configuration: PostgreSQLConfiguration(url: url, poolSize: configuration.databasePoolSize),
                availabilityChanged: { Self.log($0, logger) })
        }
        for warning in warnings {
            logger.warning("\(warning)")
        }
    }

    /// Once per episode of a database that does not answer, not once per failed request.
    private static func log(_ change: StoreAvailabilityChange, _ logger: Logger) {
        switch change {
        case .lost(let reason):
            logger.warning("the database does not answer, requests get 503 until it does: \(reason)")
        case .recovered(let seconds, let failedCalls):
            logger.info("the database answers again after \(Int(seconds.rounded())) s (\(failedCalls) calls failed meanwhile)")
        }
    }

    /// Applies pending migrations (built into the binary), returning the names of those
    /// applied now.
    @discardableResult
    func migrate() throws -> [String] {
        if let postgreSQLStore {
            return try postgreSQLStore.migrate()
        }
        return try openSQLiteStore(migrating: false, creating: true).migrate()
    }

    /// The database the commands use, for messages (never the PostgreSQL password).
    var databaseDescription: String {
        configuration.databaseURL.map { "PostgreSQL " + PostgreSQLConnectionString($0).redacted } ?? configuration.database
    }

    /// The store, with the schema brought up to date first: PostgreSQL's shared one when
    /// PUSHGATE_DATABASE_URL is set, otherwise a SQLite store on its own connection.
    func openStore(migrating: Bool = true) throws -> any Store {
        if let postgreSQLStore {
            if migrating { try migrate() }
            return postgreSQLStore
        }
        return try openSQLiteStore(migrating: migrating)
    }

    /// A SQLite store on its own connection, with the schema brought up to date first. Stores
    /// of one process share `writer` (see `openWriter`), so their writes are committed in
    /// batches on one connection; without one, a store writes on its own connection.
    /// `autoCheckpoint: false` is for `serve`, whose `WALCheckpointer` does them instead.
    /// Only `creating: true` (migrate, and so serve) may create a database that is not there.
    func openSQLiteStore(
        migrating: Bool = true, creating: Bool = false, writer: GroupCommitWriter? = nil, autoCheckpoint: Bool = true
    ) throws -> SQLiteStore {
        if creating {
            try makeParentDirectory(of: configuration.database)
        } else {
            try requireDatabase()
        }
        let store = try SQLiteStore(
            path: configuration.database, busyTimeoutMilliseconds: configuration.databaseBusyTimeoutMilliseconds,
            synchronous: synchronous, writer: writer, autoCheckpoint: autoCheckpoint)
        if migrating { try store.migrate() }
        return store
    }

    /// The connection every write of this process goes through, configured as `openStore`'s.
    func openWriter(autoCheckpoint: Bool = true, metrics: GroupCommitMetrics = .off) throws -> GroupCommitWriter {
        try requireDatabase()
        return try GroupCommitWriter(
            path: configuration.database, busyTimeoutMilliseconds: configuration.databaseBusyTimeoutMilliseconds,
            synchronous: synchronous, autoCheckpoint: autoCheckpoint, metrics: metrics)
    }

    private var synchronous: Database.Synchronous {
        switch configuration.databaseSynchronous {
        case .normal: return .normal
        case .full: return .full
        }
    }

    /// A command run from another directory than the checkout would otherwise create a new,
    /// empty database beside it (PUSHGATE_DB is relative by default) and work on that one.
    private func requireDatabase() throws {
        let path = configuration.database
        guard !FileManager.default.fileExists(atPath: path) else { return }
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let named = absolute == path ? "" : " (PUSHGATE_DB=\(path), from \(FileManager.default.currentDirectoryPath))"
        throw CommandFailure(
            "no database at \(absolute)\(named): set PUSHGATE_DB (or --config FILE) to the database's path, "
                + "or run `pushgate migrate` to create a new one there")
    }

    private func makeParentDirectory(of path: String) throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
    }
}
