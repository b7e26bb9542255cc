/// The outbox as an operator watches it (`GET /metrics`, `GET /status`): how much waits,
/// how much is given up, and how late the most overdue push is.
public struct OutboxSummary: Sendable, Equatable {
    /// Pending rows never tried yet.
    public var queued: Int
    /// Pending rows tried at least once (waiting for their next attempt, or in flight).
    public var retrying: Int
    /// Dead letters: refused upstream or retries exhausted (`pushgate outbox dead`).
    public var dead: Int
    /// Pending rows whose time has come (a worker that keeps up leaves few).
    public var due: Int
    /// The `next_attempt_at` (unix ms) of the most overdue due row; nil when none is due.
    public var oldestDueAt: Int64?

    public init(queued: Int, retrying: Int, dead: Int, due: Int, oldestDueAt: Int64?) {
        self.queued = queued
        self.retrying = retrying
        self.dead = dead
        self.due = due
        self.oldestDueAt = oldestDueAt
    }
}

/// What the operator's pages read of the store: cheap aggregate queries, one each.
public protocol OperationsStatusStore: Sendable {
    /// The outbox by state, as of `now` (unix ms): one query.
    func outboxSummary(now: Int64) throws -> OutboxSummary
    /// Stored devices per app and platform, in app order.
    func deviceCounts() throws -> [DeviceCount]
    /// The outbox's logged outcomes (`DeliveryLogEntry.Kind` raw values) since `since` (unix ms).
    func deliveryLogCounts(since: Int64) throws -> [String: Int]
    /// Stored devices whose last delivery was at or after `since` (unix s), by that outcome's
    /// text (`delivered`, `dead token: …`, `rejected (400): …`): pnm2's pushes and the outbox's.
    func lastOutcomeCounts(since: Int64) throws -> [String: Int]
    /// Per app, the newest delivery that did not end in `delivered`, among the `limit` newest.
    func lastProblems(limit: Int) throws -> [AppProblem]
    /// Keeps `check` as its app's last `apps check`, replacing the one before.
    func recordAppCheck(_ check: AppCheckRecord) throws
    /// Every registered app's last `apps check`.
    func appChecks() throws -> [AppCheckRecord]
    /// Bytes the database takes on disk: SQLite's file and its WAL, PostgreSQL's
    /// `pg_database_size` of the current database.
    func databaseBytes() throws -> Int64
    /// Keeps `bytes` as the sample of the hour `now` (unix s) is in, unless that hour has one
    /// already (another node's, or this one's before a restart: the first stays), and deletes
    /// the samples older than `DatabaseSize.keptSeconds`, in one write.
    func recordDatabaseSize(bytes: Int64, now: Int64) throws
    /// The newest sample taken at least a day before `now` (unix s), nil when there is none.
    func databaseSizeADayBefore(_ now: Int64) throws -> DatabaseSize.Sample?
}

extension OperationsStatusStore {
    /// The database's size now, with the sample to say how much it grew over the last day.
    public func databaseSize(now: Int64) throws -> DatabaseSize {
        DatabaseSize(bytes: try databaseBytes(), dayAgo: try databaseSizeADayBefore(now))
    }
}

/// The outcome of one `pushgate apps check`: whether APNs or Google accepted the credentials.
public struct AppCheckRecord: Sendable, Equatable {
    public var appID: AppID
    /// Unix seconds.
    public var checkedAt: Int64
    public var ok: Bool
    /// The check's own words.
    public var detail: String

    public init(appID: AppID, checkedAt: Int64, ok: Bool, detail: String) {
        self.appID = appID
        self.checkedAt = checkedAt
        self.ok = ok
        self.detail = detail
    }
}

/// How many stored devices an app has on one platform (nil: the app is not registered yet).
public struct DeviceCount: Sendable, Equatable {
    public var appID: String
    public var platform: Platform?
    public var count: Int

    public init(appID: String, platform: Platform?, count: Int) {
        self.appID = appID
        self.platform = platform
        self.count = count
    }
}

/// The newest delivery to one of an app's devices that did not end in `delivered`: what the
/// upstream last said went wrong for that app.
public struct AppProblem: Sendable, Equatable {
    public var appID: String
    /// The device's last outcome as recorded (`rejected (400): BadTopic`, `not delivered, …`).
    public var outcome: String
    /// Unix seconds.
    public var at: Int64

    public init(appID: String, outcome: String, at: Int64) {
        self.appID = appID
        self.outcome = outcome
        self.at = at
    }
}
