/// How long what nobody uses any more is kept. Anyone can write to the client-side APIs, so
/// nothing may grow forever: housekeeping removes what these allow.
public struct RetentionPolicy: Sendable, Equatable {
    /// Devices no report, registration or refresh touched for this long go, with their links.
    public var deviceSeconds: Int64
    /// Devices of apps that are not registered go after this long untouched.
    public var unregisteredAppSeconds: Int64
    /// Dead letters go this long after they died.
    public var deadLetterSeconds: Int64

    public static let day: Int64 = 86_400
    /// Tokens of an app nobody registered are most likely made up: a week is time enough for
    /// an operator to register an app its phones already report for.
    public static let unregisteredAppDays: Int64 = 7

    public init(deviceDays: Int, deadLetterDays: Int, unregisteredAppDays: Int64 = Self.unregisteredAppDays) {
        deviceSeconds = Int64(deviceDays) * Self.day
        unregisteredAppSeconds = unregisteredAppDays * Self.day
        deadLetterSeconds = Int64(deadLetterDays) * Self.day
    }
}

/// What one housekeeping run removed, or all runs together.
public struct HousekeepingCounts: Sendable, Equatable {
    /// Devices past the retention, registered apps' or not.
    public var devices: Int
    /// Devices of unregistered apps past their shorter retention.
    public var unregisteredAppDevices: Int
    public var deadLetters: Int

    public init(devices: Int = 0, unregisteredAppDevices: Int = 0, deadLetters: Int = 0) {
        self.devices = devices
        self.unregisteredAppDevices = unregisteredAppDevices
        self.deadLetters = deadLetters
    }

    public static func + (lhs: Self, rhs: Self) -> Self {
        Self(
            devices: lhs.devices + rhs.devices, unregisteredAppDevices: lhs.unregisteredAppDevices + rhs.unregisteredAppDevices,
            deadLetters: lhs.deadLetters + rhs.deadLetters)
    }
}

/// What operators see of housekeeping (`pushgate outbox`, /status).
public struct HousekeepingReport: Sendable, Equatable {
    /// Unix seconds of the last run, nil before the first.
    public var lastRunAt: Int64?
    public var lastRun: HousekeepingCounts
    public var total: HousekeepingCounts

    public init(lastRunAt: Int64?, lastRun: HousekeepingCounts, total: HousekeepingCounts) {
        self.lastRunAt = lastRunAt
        self.lastRun = lastRun
        self.total = total
    }
}

/// The store's side of housekeeping: claiming a run (one node at a time), removing in small
/// batches, and keeping what was removed for operators.
public protocol HousekeepingStore: Sendable {
    /// Claims the next run at `now` (unix s) unless another node claimed one less than
    /// `interval` seconds ago; true when this caller should run.
    func claimHousekeepingRun(now: Int64, interval: Int64) throws -> Bool
    /// Removes, in one short transaction, at most `limit` rows of each kind that `policy`
    /// lets go as of `now` (unix s). A device a report touches meanwhile is kept.
    func removeExpired(_ policy: RetentionPolicy, now: Int64, limit: Int) throws -> HousekeepingCounts
    /// Deletes the payloads no queued push uses any more (their devices or dead letters went).
    func deleteUnusedPayloads() throws -> Int
    /// Records a finished run.
    func recordHousekeepingRun(_ removed: HousekeepingCounts, at now: Int64) throws
    func housekeepingReport() throws -> HousekeepingReport
}
