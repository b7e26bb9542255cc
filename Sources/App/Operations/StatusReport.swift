import Foundation
import PushCore

/// Everything `/status` shows, read from the store at once: per app its platform,
/// credentials and last problem; devices; the last hour's outcomes; the outbox; recent
/// prunes. A handful of aggregate queries; only the operator's page runs them.
struct StatusReport: Sendable {
    struct AppRow: Sendable {
        let credentials: AppCredentialState
        let devices: Int
        let lastProblem: AppProblem?
        /// The last `pushgate apps check`, if one ran.
        let lastCheck: AppCheckRecord?
    }

    let generatedAt: Date
    let apps: [AppRow]
    /// Devices of apps not registered (yet), by app id: phones report before apps are added.
    let unregisteredDevices: [DeviceCount]
    let devicesByPlatform: [(platform: String, count: Int)]
    /// The outbox's log of the last hour (`delivered`, `retry`, `dead`, `pruned`, `kept`).
    let outboxLastHour: [String: Int]
    /// Stored devices pushed in the last hour (pnm2 or outbox), by their last outcome's text.
    let devicesLastHour: [(outcome: String, count: Int)]
    let outbox: OutboxSummary
    let deadLetters: [OutboxDeadLetter]
    let recentPrunes: [DeliveryLogEntry]
    /// What housekeeping removed (expired devices, unregistered apps' tokens, old dead letters).
    let housekeeping: HousekeepingReport
    /// The database's size and its growth over the last day (the store's hourly samples).
    let databaseSize: DatabaseSize

    static let window: TimeInterval = 3600

    static func read(from store: any Store, now: Date = Date()) throws -> StatusReport {
        let nowSeconds = Int64(now.timeIntervalSince1970)
        let nowMilliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let counts = try store.deviceCounts()
        let problems = Dictionary(
            try store.lastProblems(limit: 1000).map { ($0.appID, $0) }, uniquingKeysWith: { first, _ in first })
        let credentials = try AppCredentialState.all(catalog: store, archive: store)
        let checks = Dictionary(try store.appChecks().map { ($0.appID, $0) }, uniquingKeysWith: { _, last in last })
        let registered = Set(credentials.map(\.app.id.rawValue))
        var perApp: [String: Int] = [:]
        var perPlatform: [String: Int] = [:]
        for count in counts {
            perApp[count.appID, default: 0] += count.count
            perPlatform[count.platform?.rawValue ?? "unknown (app not registered)", default: 0] += count.count
        }
        return StatusReport(
            generatedAt: now,
            apps: credentials.map {
                AppRow(
                    credentials: $0, devices: perApp[$0.app.id.rawValue] ?? 0,
                    lastProblem: problems[$0.app.id.rawValue],
                    lastCheck: checks[$0.app.id])
            },
            unregisteredDevices: counts.filter { !registered.contains($0.appID) },
            devicesByPlatform: perPlatform.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            outboxLastHour: try store.deliveryLogCounts(since: nowMilliseconds - Int64(window * 1000)),
            devicesLastHour: try store.lastOutcomeCounts(since: nowSeconds - Int64(window))
                .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { ($0.key, $0.value) },
            outbox: try store.outboxSummary(now: nowMilliseconds),
            deadLetters: try store.deadLetters(limit: 10),
            recentPrunes: Array(try store.deliveryLog(limit: 500).filter { $0.kind == .pruned }.prefix(10)),
            housekeeping: try store.housekeepingReport(), databaseSize: try store.databaseSize(now: nowSeconds))
    }
}
