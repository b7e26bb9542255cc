import Foundation
import Logging
import PushCore
import PushStore

/// Every store protocol: what a command gets from `Runtime.openStore`, on either engine.
typealias Store = TokenStore & BeamsStore & DevicePruning & DeviceDeliveryRecord & BridgeSubscriptionStore
    & CospaceUserStore & AcrobitsPushDirectory & OutboxStore & ProviderTokenArchive & SenderKeyStore & MigrationHistory
    & OperationsStatusStore

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
        postgreSQLStore = configuration.databaseURL.map { url in
            PostgreSQLStore(configuration: PostgreSQLConfiguration(url: url, poolSize: configuration.databasePoolSize))
        }
        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: level) }
        var logger = Logger(label: label)
        logger.logLevel = level
        self.logger = logger
        for warning in warnings {
            logger.warning("\(warning)")
        }
    }

    /// The schema migrations: PUSHGATE_SQL_DIR, or the `sql/` folder found beside the
    /// executable (an install) or above it (a checkout's `.build/…/pushgate`).
    func migrationsDirectory() throws -> URL {
        if let configured = configuration.sqlDirectory {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var candidates: [URL] = [executable.deletingLastPathComponent().appendingPathComponent("../share/pushgate/sql")]
        var directory = executable.deletingLastPathComponent()
        for _ in 0..<6 {
            candidates.append(directory.appendingPathComponent("sql"))
            directory = directory.deletingLastPathComponent()
        }
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("sql"))
        for candidate in candidates {
            let first = candidate.appendingPathComponent("0001_initial.sql").standardizedFileURL
            if FileManager.default.fileExists(atPath: first.path) {
                return candidate.standardizedFileURL
            }
        }
        throw CommandFailure("cannot find the schema migrations (sql/0001_initial.sql); set PUSHGATE_SQL_DIR")
    }

    /// Applies pending migrations, returning the names of those applied now. PostgreSQL's
    /// are the `postgresql/` folder of the migrations directory.
    @discardableResult
    func migrate() throws -> [String] {
        if let postgreSQLStore {
            return try postgreSQLStore.migrate(directory: migrationsDirectory().appendingPathComponent("postgresql"))
        }
        return try openSQLiteStore(migrating: false, creating: true).migrate(directory: migrationsDirectory())
    }

    /// The database the commands use, for messages (never the PostgreSQL password).
    var databaseDescription: String {
        configuration.databaseURL.map { "PostgreSQL " + Configuration.hidingPassword($0) } ?? configuration.database
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
        if migrating { try store.migrate(directory: migrationsDirectory()) }
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
