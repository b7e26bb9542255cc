import Foundation

/// Where the store lives and how to treat it, as the configuration says: a database file,
/// or a server when `serverURL` is set. `backend` turns them into the one engine to use.
public struct StoreSettings: Sendable {
    /// The database file (PUSHGATE_DB), used when no server is named.
    public var path: String
    /// A libpq connection string or URI (PUSHGATE_DATABASE_URL); set, it wins over `path`.
    public var serverURL: String?
    /// Connections each process opens to the server at most.
    public var poolSize: Int
    /// How long a write waits for another process's write lock on the file.
    public var busyTimeoutMilliseconds: Int
    /// How hard commits to the file are pushed to disk.
    public var synchronous: Database.Synchronous

    public init(
        path: String, serverURL: String?, poolSize: Int, busyTimeoutMilliseconds: Int, synchronous: Database.Synchronous
    ) {
        self.path = path
        self.serverURL = serverURL
        self.poolSize = poolSize
        self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
        self.synchronous = synchronous
    }

    /// serve's responder threads when the operator sets none: what suits the engine that
    /// `serverURL` (set or not) names.
    public static func defaultResponderThreads(serverURL: String?) -> Int {
        serverURL == nil ? SQLiteBackend.responderThreads : PostgreSQLBackend.responderThreads
    }

    /// `serverURL` as messages may show it: the password replaced by `***`.
    public static func redacted(serverURL: String) -> String {
        PostgreSQLConnectionString(serverURL).redacted
    }

    /// The backend these settings name. A server's backend connects when first used;
    /// `availabilityChanged` is told, once per episode, when it stops answering and when it
    /// answers again (a file does not go away that way).
    public func backend(
        availabilityChanged: @escaping @Sendable (StoreAvailabilityChange) -> Void = { _ in }
    ) -> any StoreBackend {
        if let serverURL {
            return PostgreSQLBackend(
                store: PostgreSQLStore(
                    configuration: PostgreSQLConfiguration(url: serverURL, poolSize: poolSize),
                    availabilityChanged: availabilityChanged),
                url: serverURL)
        }
        return SQLiteBackend(
            path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, synchronous: synchronous)
    }
}

/// A command that would work on a database file that is not there.
public struct MissingDatabase: Error, CustomStringConvertible {
    public let description: String
}
