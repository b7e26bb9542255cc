import PushCore

/// What the store's engine-neutral code needs of an engine: connections for single
/// statements, write and read transactions, and the clock. The extensions of `SQLStore` in
/// each area folder implement PushCore's store protocols once, on this; `SQLiteStore` and
/// `PostgreSQLStore` supply it.
protocol SQLStore: AnyObject, Sendable {
    associatedtype Connection: SQLConnection

    /// Unix seconds for created_at/updated_at; tests pass a fixed one.
    var clock: @Sendable () -> Int64 { get }
    var recentApps: RecentApps { get }

    /// A connection for statements that need no transaction of their own.
    func withDatabase<T>(_ body: (Connection) throws -> T) throws -> T
    /// One write transaction, committed when `body` returns. `body` may run more than once
    /// (a retried serialization failure, a group commit's retry) and must not call `write`.
    func write<T>(_ body: (Connection) throws -> T) throws -> T
    /// A write transaction for a body that is right at READ COMMITTED because it relies only
    /// on the row locks its statements take: the outbox's claim (`FOR UPDATE SKIP LOCKED`),
    /// the delivery log's trim (a row another node deleted first is skipped). On PostgreSQL
    /// SERIALIZABLE would add nothing to those locks but conflicts with every writer of the
    /// rows and pages they read; SQLite's `write`.
    func lockingWrite<T>(_ body: (Connection) throws -> T) throws -> T
    /// One read snapshot.
    func read<T>(_ body: (Connection) throws -> T) throws -> T
    /// Writes one Token Reporter report (`AcrobitsAccountStore.saveAccountTokens`' rules) the
    /// engine's fastest way: SQLite in Swift through its group-commit writer
    /// (`writeReportStatements`), PostgreSQL through its schema's report functions, batched
    /// with the node's other reports of the moment. The two must agree:
    /// TokenReporterScenarioTests holds both to one table. `admittingNewDevices`, when given,
    /// is called before anything is written if the report may create a device
    /// (`ReportStanding.changesDevices`); its throw writes nothing.
    func writeReport(_ report: AccountReport, admittingNewDevices: (() throws -> Void)?) throws
}

extension SQLiteStore: SQLStore, PushgateStore {
    /// The common report repeats what is stored (a phone reports its token at every start and
    /// registration refresh): seen so on a reader, it is answered without the writer, whose
    /// queue and wake-ups cost such a report more than the statement itself. One select in
    /// autocommit is a consistent snapshot; a report that changes something is decided again
    /// inside the write transaction. The same select tells a report that may create a device,
    /// for the new-device gate: the account's links are read once before the write.
    func writeReport(_ report: AccountReport, admittingNewDevices: (() throws -> Void)?) throws {
        let standing = try withDatabase { try AcrobitsLinkQuery.standing(of: report, in: $0) }
        if standing == .changesNothing { return }
        if standing == .changesDevices { try admittingNewDevices?() }
        try writeReportStatements(report)
    }

    func lockingWrite<T>(_ body: (Database) throws -> T) throws -> T {
        try write(body)
    }
}
