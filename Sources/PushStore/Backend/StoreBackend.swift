import PushCore

/// What a command, a responder thread or a service gets from a backend: every store
/// protocol, the migration history readiness reads, and the export and import.
public typealias BackendStore = PushgateStore & MigrationHistory & StoreTransfer

/// One storage engine behind one face: it opens and migrates its database, hands out stores,
/// runs what serve needs beside them and checks itself for doctor. The caller picks one
/// from the configuration once (`StoreSettings.backend`) and never asks which engine it is:
/// what differs between the engines is answered here.
public protocol StoreBackend: Sendable {
    /// How messages name the database: a file's path, or a server's address (never with
    /// its password).
    var databaseDescription: String { get }
    /// The database's file on this host, for checks of the file system it grows on; nil
    /// when the database lives on a server, whose host watches its own disk.
    var databaseFile: String? { get }
    /// Whether several nodes may share this database (and so its outbox): a worker then takes
    /// back only its own node's claims, and other nodes' publishes can wake it.
    var isSharedByNodes: Bool { get }

    /// Applies pending migrations (built into the binary), creating a database file that is
    /// not there (a server's database must exist); returns the names of those applied now.
    @discardableResult
    func migrate() throws -> [String]

    /// A store for a command, with the schema brought up to date first when `migrating`.
    /// Only `creating: true` may create a database that is not there.
    func openStore(migrating: Bool, creating: Bool) throws -> any BackendStore

    /// What serve runs on, once the schema is migrated. `metrics` counts the batched writes;
    /// `warn` is told, in words for the log, of trouble the backend's own services meet.
    func serving(metrics: GroupCommitMetrics, warn: @escaping @Sendable (String) -> Void) throws -> any ServedDatabase

    /// What doctor says about the database. It never migrates nor creates anything: a doctor
    /// that repaired silently would hide the cause.
    func checkup() -> StoreCheckup
}
