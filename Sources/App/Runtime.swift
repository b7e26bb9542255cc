import Foundation
import Logging
import PushCore
import PushStore

/// What a command gets from `Runtime.openStore`, whichever backend holds the store: every
/// store protocol, and the migration history readiness reads.
typealias Store = BackendStore

/// What a command needs to start: the effective configuration, a logger, and the store.
struct Runtime {
    let configuration: Configuration
    let logger: Logger
    /// The backend the configuration names, chosen here once for the whole process. A
    /// database server's backend connects when first used, and its pool then holds the
    /// process's connections, shared by every thread.
    let backend: any StoreBackend
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
        backend = StoreSettings(
            path: configuration.database, serverURL: configuration.databaseURL,
            poolSize: configuration.databasePoolSize,
            busyTimeoutMilliseconds: configuration.databaseBusyTimeoutMilliseconds,
            synchronous: configuration.databaseSynchronous.storeSetting
        ).backend(availabilityChanged: { [logger] in Self.log($0, logger) })
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

    /// The store, with the schema brought up to date first when `migrating`. Only
    /// `creating: true` (import) may create a database that is not there.
    func openStore(migrating: Bool = true, creating: Bool = false) throws -> any Store {
        try backend.openStore(migrating: migrating, creating: creating)
    }
}

extension Configuration.DatabaseSynchronous {
    /// The store's name for this setting.
    var storeSetting: Database.Synchronous {
        switch self {
        case .normal: return .normal
        case .full: return .full
        }
    }
}
