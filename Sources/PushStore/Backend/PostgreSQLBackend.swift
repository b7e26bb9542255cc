import Foundation

/// The store on a PostgreSQL server: one store for the whole process, over its pool, shared
/// by every thread; each write is a short transaction of its own, except the Token
/// Reporter's reports, which are taken in batches. The server checkpoints by itself.
struct PostgreSQLBackend: StoreBackend {
    let store: PostgreSQLStore
    let url: String

    var databaseDescription: String { "PostgreSQL " + StoreSettings.redacted(serverURL: url) }
    var databaseFile: String? { nil }
    var isSharedByNodes: Bool { true }

    /// serve's responder threads when the operator sets none. A node writes one report batch
    /// at a time and each report waits on its thread for it, so the threads bound the batch:
    /// as many as a whole batch (`PostgreSQLStore.maximumReportBatch`), since larger batches
    /// cost the server less per report (docs/performance.md has the measurements). The
    /// threads share the pool, not a connection each.
    static let responderThreads = PostgreSQLStore.maximumReportBatch

    func migrate() throws -> [String] {
        try store.migrate()
    }

    func openStore(migrating: Bool, creating: Bool) throws -> any BackendStore {
        if migrating { try migrate() }
        return store
    }

    func serving(metrics: GroupCommitMetrics, warn: @escaping @Sendable (String) -> Void) throws -> any ServedDatabase {
        store.recordReportBatches(in: metrics)
        return PostgreSQLServedDatabase(postgreSQLStore: store, warn: warn)
    }

    func checkup() -> StoreCheckup {
        let checked = PostgreSQLCheck(
            store: store, description: databaseDescription,
            migrations: Result { try Migration.builtIn(for: .postgresql) }
        ).run()
        var checkup = StoreCheckup(findings: checked.findings, apps: checked.apps)
        checkup.findings += PostgreSQLCheck.transportFindings(PostgreSQLConnectionString(url))
        if checked.apps != nil {
            do {
                checkup.senderKeys = try store.senderKeys()
            } catch {
                checkup.findings.append(.problem("keys", "cannot read the sender keys: \(error)"))
            }
            checkup.readAppProblems(from: store)
            checkup.readDatabaseSize(from: store)
        }
        return checkup
    }
}
