import CoreMetrics
import FastCGI
import Foundation
import Logging
import PushAPI
import PushCore
import PushCrypto
import PushDelivery
import PushStore

/// serve's parts that work beside the requests, started in this order and stopped in the
/// reverse one: delivery events, the delivery engine, the outbox worker (before the engine it
/// delivers through), the outbox's wake-ups, housekeeping (first of all to stop).
struct BackgroundServices {
    let delivery: DeliveryStack
    let outbox: OutboxWorker

    static func start(
        in services: ServiceList, runtime: Runtime, database: any ServedDatabase, metrics: OperatorMetrics
    ) throws -> BackgroundServices {
        let configuration = runtime.configuration
        let logger = runtime.logger
        let store = database.store
        let events = try services.start(RecordingDeliveryEvents(records: store, logger: logger))
        let delivery = try services.start(
            try DeliveryStack(
                configuration: configuration, catalog: store, events: events, providerTokenArchive: store,
                metrics: metrics.delivery, logger: logger))
        let outbox = try services.start(
            outboxWorker(runtime: runtime, store: store, deliverer: delivery.pipeline, metrics: metrics))
        if let wakes = database.outboxWakes(onWake: { outbox.notify() }) {
            try services.start(wakes)
        }
        // Nothing grows forever: devices nobody reports, unregistered apps' tokens and old
        // dead letters go. On the same timer, the database's size is recorded once an hour.
        let databaseSizes = DatabaseSizeSampler(store: store)
        try services.start(
            Housekeeper(
                store: store,
                policy: RetentionPolicy(
                    deviceDays: configuration.deviceRetentionDays, deadLetterDays: configuration.deadLetterRetentionDays),
                logger: logger,
                everyTick: { now in
                    do {
                        try databaseSizes.sampleIfDue(now: now)
                    } catch {
                        logger.warning("recording the database's size failed, the next tick tries again: \(error)")
                    }
                }))
        return BackgroundServices(delivery: delivery, outbox: outbox)
    }

    /// One outbox worker per process: queued pushes left by an earlier run (or a crash) go
    /// out as soon as the responder starts. Where several nodes share the
    /// database they may deliver from one outbox: a starting worker takes back only its own
    /// node's claims, never a live node's; a dead node's rows come back when their lease runs
    /// out. Their publishes wake this worker, and polling every second covers a listener that
    /// is down.
    private static func outboxWorker(
        runtime: Runtime, store: any Store, deliverer: any Deliverer, metrics: OperatorMetrics
    ) -> OutboxWorker {
        let configuration = runtime.configuration
        let nodeID = configuration.effectiveNodeID
        let shared = runtime.backend.isSharedByNodes
        runtime.logger.info("outbox node id \(nodeID)")
        return OutboxWorker(
            store: CountingOutboxStore(store, catalog: store, metrics: metrics.delivery),
            deliverer: deliverer,
            configuration: OutboxWorkerConfiguration(
                leaseMilliseconds: Int64(configuration.outboxLeaseSeconds) * 1000,
                idlePollMilliseconds: shared ? 1_000 : 5_000,
                releaseClaimsOnStart: shared ? .thisNode : .everyNode, nodeID: nodeID),
            logger: runtime.logger)
    }

    /// What the dialects need besides the store.
    func routeServices(
        configuration: Configuration, database: any ServedDatabase, metrics: OperatorMetrics, logger: Logger,
        listening: FastCGIConfiguration
    ) -> RouteServices {
        // Runs of the password hash itself (a remembered success or a throttled login runs none).
        let passwordChecks = Counter(label: "pushgate_password_checks_total", factory: metrics.factory)
        return RouteServices(
            configuration: configuration, delivery: delivery.pipeline, logger: logger,
            wakeOutbox: { [outbox] in outbox.notify() },
            pnm2RetryBudget: Pnm2RetryBudget(
                answerWithinSeconds: Pnm2RetryBudget.standard.answerWithinSeconds,
                attemptSeconds: delivery.engineConfiguration.requestTimeoutSeconds),
            cospacePasswords: VerifiedPasswordCache(verify: { password, storedHash in
                passwordChecks.increment()
                return PasswordHash.verify(password: password, against: storedHash)
            }),
            loginThrottle: LoginThrottle(
                limits: .init(
                    failuresPerWindow: configuration.loginFailuresPerMinute, capacity: configuration.loginThrottleCapacity)),
            newDeviceQuota: NewDeviceQuota(
                limits: .init(
                    perHour: configuration.newDevicesPerHour == 0 ? nil : configuration.newDevicesPerHour,
                    perHourPer56: configuration.newDevicesPerHourPer56 == 0 ? nil : configuration.newDevicesPerHourPer56,
                    perHourPer48: configuration.newDevicesPerHourPer48 == 0 ? nil : configuration.newDevicesPerHourPer48)),
            deviceCeiling: AppDeviceCeiling(
                maximum: configuration.maxDevicesPerApp == 0 ? nil : configuration.maxDevicesPerApp,
                counts: { [store = database.store] in
                    Dictionary(try store.deviceCounts().map { ($0.appID, $0.count) }, uniquingKeysWith: +)
                }),
            queuedWrites: database.queuedWrites, metrics: metrics,
            storeGauges: StoreGauges(factory: metrics.factory, logger: logger),
            openConnections: { OpenConnections.count(for: listening) })
    }
}
