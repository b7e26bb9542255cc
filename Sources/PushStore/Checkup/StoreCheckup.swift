import Foundation
import PushCore

/// What a backend's checkup tells doctor: its findings, and what the later checks read from
/// the database when it is usable.
public struct StoreCheckup: Sendable {
    public var findings: [StoreFinding]
    /// The registered apps, when the schema is this version's and they could be read.
    public var apps: [RegisteredApp]?
    /// The sender keys, read with the apps.
    public var senderKeys: [SenderKey]?
    /// Per app, the newest delivery that did not end in `delivered`, read with the apps.
    public var appProblems: [AppProblem]?
    /// The newest time the database records (a migration's `applied_at`), for the clock
    /// check; nil when the database cannot tell.
    public var latestRecordedTime: Int64?

    public init(
        findings: [StoreFinding], apps: [RegisteredApp]? = nil, senderKeys: [SenderKey]? = nil,
        latestRecordedTime: Int64? = nil
    ) {
        self.findings = findings
        self.apps = apps
        self.senderKeys = senderKeys
        self.latestRecordedTime = latestRecordedTime
    }
}

extension StoreCheckup {
    /// Reads the apps' last delivery problems, or notes why they cannot be read.
    mutating func readAppProblems(from store: some OperationsStatusStore) {
        do {
            appProblems = try store.lastProblems(limit: 1000)
        } catch {
            findings.append(.problem("apps", "cannot read the apps' last delivery problems: \(error)"))
        }
    }

    /// Notes the database's size and its growth over the last day (from the sample `serve`
    /// recorded in the store a day before, as /status shows it).
    mutating func readDatabaseSize(from store: some OperationsStatusStore, now: Int64 = Int64(Date().timeIntervalSince1970)) {
        do {
            findings.append(.ok("database", "size \(try store.databaseSize(now: now).summary)"))
        } catch {
            findings.append(.warning("database", "cannot read the database's size: \(error)"))
        }
    }
}
