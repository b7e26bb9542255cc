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
    /// 64, a whole batch (`PostgreSQLStore.maximumReportBatch`), made batches of ~26 reports
    /// instead of ~12, a quarter less of the server's CPU per report and about a third more
    /// reports a second than 24 (docs/performance.md); the threads share the pool, not a
    /// connection each.
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
        return PostgreSQLServedDatabase(store: store, warn: warn)
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
        }
        return checkup
    }
}
