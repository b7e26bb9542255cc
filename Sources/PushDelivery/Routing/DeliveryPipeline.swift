import Logging
import PushCore

/// The one way pushes go out, for the dialects and the outbox alike. In `deliver`, in order:
/// each push's app (the one it carries, or else the catalog's) picks the client of its
/// platform, which sends it through the engine; the batch's results are counted, the stored
/// devices the upstream calls dead are pruned, and the results go to the caller on its `home`,
/// in the batch's order. Make one per process (`DeliveryStack`): it owns the credential cache
/// and the trouble log, and shares the token caches it is given.
public struct DeliveryPipeline: Deliverer {
    private let catalog: any AppCatalog
    private let clients: [Platform: any PlatformDeliverer]
    private let trouble: DeliveryTroubleLog
    private let metrics: DeliveryMetrics
    private let clock: UnixClock
    private let logger: Logger
    /// The `dialect` label its pushes count under; nil for the outbox, which counts the
    /// outcomes it completes (`CountingOutboxStore`).
    private var dialect: String?
    /// Where dead tokens are pruned and each stored device's outcome is recorded; nil for the
    /// outbox, which does both as it completes its rows.
    private var devices: (any DevicePruning & DeviceDeliveryRecord)?

    /// The usual wiring: an `APNsClient`, an `FCMClient` and a `WebPushClient` over `transport`.
    public init(
        catalog: AppCatalog, transport: HTTP2Transport, configuration: DeliveryConfiguration = DeliveryConfiguration(),
        providerTokens: ProviderTokenCache, accessTokens: AccessTokenCache,
        events: DeliveryEvents = IgnoredDeliveryEvents(), clock: UnixClock = .system, metrics: DeliveryMetrics = .off,
        logger: Logger
    ) {
        let credentials = CredentialCache()
        let clients: [PlatformDeliverer] = [
            APNsClient(
                transport: transport, endpoints: configuration.apns, providerTokens: providerTokens,
                credentials: credentials, events: events, metrics: metrics, clock: clock, logger: logger),
            FCMClient(
                transport: transport, baseURL: configuration.fcmURL, accessTokens: accessTokens,
                credentials: credentials, metrics: metrics, clock: clock, logger: logger),
            WebPushClient(
                transport: transport, endpoints: configuration.webPushEndpoints, tokens: VAPIDTokenCache(clock: clock),
                credentials: credentials, metrics: metrics, clock: clock, logger: logger),
        ]
        self.init(catalog: catalog, clients: clients, metrics: metrics, clock: clock, logger: logger)
    }

    /// Any set of platform clients, one per platform. `clock` dates the outcomes recorded on
    /// stored devices.
    public init(
        catalog: AppCatalog, clients: [PlatformDeliverer], metrics: DeliveryMetrics = .off, clock: UnixClock = .system,
        logger: Logger
    ) {
        self.catalog = catalog
        self.clients = Dictionary(clients.map { ($0.platform, $0) }, uniquingKeysWith: { _, last in last })
        trouble = DeliveryTroubleLog(logger: logger)
        self.metrics = metrics
        self.clock = clock
        self.logger = logger
    }

    /// This pipeline for a dialect that sends while its caller waits (pnm2, Matrix): its
    /// pushes counted as `pushgate_pushes_total{dialect}` (each attempt: a push retried once
    /// and then delivered is one `retry` and one `delivered`), and the stored device of a dead
    /// token pruned from `devices`, once, whichever dialect linked it.
    public func sending(as dialect: String, devices: any DevicePruning & DeviceDeliveryRecord) -> DeliveryPipeline {
        var pipeline = self
        pipeline.dialect = dialect
        pipeline.devices = devices
        return pipeline
    }

    /// Blocks until every push is answered. Never call it from a transport completion (the
    /// engine thread would wait for itself).
    public func deliver(_ batch: [Notification]) -> [DeliveryResult] {
        deliver(batch, logger: logger)
    }

    /// `logger`: the request's, so that its prunes carry its id.
    public func deliver(_ batch: [Notification], logger: Logger) -> [DeliveryResult] {
        let apps = lookUpApps(of: batch)
        let collector = OrderedCollector<DeliveryResult>(count: batch.count)
        send(batch, apps: apps, into: collector)
        let results = collector.wait()
        count(batch, results, apps: apps)
        prune(batch, results, logger: logger)
        return results
    }

    /// Returns once every push is handed to its client; the rest runs on `home` (whose
    /// connection `devices` is), so the engine thread that answers the last push never runs
    /// the caller's work.
    public func deliver(
        _ batch: [Notification], logger: Logger, home: any HomeThread,
        completion: @escaping @Sendable ([DeliveryResult]) -> Void
    ) {
        guard !batch.isEmpty else { return completion([]) }
        let apps = lookUpApps(of: batch)
        let collector = OrderedCollector<DeliveryResult>(count: batch.count) { [self] results in
            home.resume {
                count(batch, results, apps: apps)
                prune(batch, results, logger: logger)
                completion(results)
            }
        }
        send(batch, apps: apps, into: collector)
    }

    /// Hands every push to the client of its app's platform; each result goes to `collector`
    /// at the push's index.
    private func send(
        _ batch: [Notification], apps: [AppID: AppLookup], into collector: OrderedCollector<DeliveryResult>
    ) {
        for (index, notification) in batch.enumerated() {
            switch app(of: notification, among: apps) {
            case .success(let app):
                guard let client = clients[app.platform] else {
                    let reason = "no deliverer for platform \(app.platform.rawValue)"
                    collector.set(index, .rejected(status: 500, reason: reason))
                    continue
                }
                client.send(notification, app: app) { [trouble] result in
                    trouble.observe(result, app: app)
                    collector.set(index, result)
                }
            case .failure(.unknown):
                collector.set(index, .rejected(status: 400, reason: "unknown app \(notification.appID)"))
            case .failure(.catalogUnavailable(let reason)):
                collector.set(index, .retryLater(reason: "app catalog unavailable: \(reason)", afterSeconds: nil))
            }
        }
    }

    /// Each push's result under the dialect's name, with its app's platform as `provider`.
    private func count(_ batch: [Notification], _ results: [DeliveryResult], apps: [AppID: AppLookup]) {
        guard let dialect else { return }
        for (notification, result) in zip(batch, results) {
            let provider = (try? app(of: notification, among: apps).get())?.platform.rawValue ?? "unknown"
            metrics.countPush(provider: provider, dialect: dialect, result: PushResultLabel(result))
            if case .deadToken(let reason, _) = result { metrics.countDeadToken(provider: provider, reason: reason) }
        }
    }

    /// Records each stored device's outcome (one transaction for the batch), then deletes the
    /// device of every dead token.
    private func prune(_ batch: [Notification], _ results: [DeliveryResult], logger: Logger) {
        guard let devices else { return }
        let outcomes = zip(batch, results).compactMap { notification, result in
            notification.deviceID.map { (deviceID: $0, summary: result.summary) }
        }
        do {
            // A device pruned below is skipped by the store.
            try devices.recordOutcomes(outcomes, now: Int64(clock.now()))
        } catch {
            logger.error("could not record delivery outcomes: \(error)")
        }
        for (notification, result) in zip(batch, results) {
            guard case .deadToken(let reason, let since) = result, let deviceID = notification.deviceID else {
                continue
            }
            do {
                if try devices.pruneDevice(id: deviceID, deadSince: since) {
                    logger.info("pruned device \(deviceID) of \(notification.appID) (\(notification.token)): \(reason)")
                }
            } catch {
                // The push's result stands; the next push to this token will be refused again.
                logger.error("could not prune device \(deviceID): \(error)")
            }
        }
    }

    /// The app a dialect already found wins: looking it up again would only repeat its read.
    private func app(of notification: Notification, among apps: [AppID: AppLookup]) -> AppLookup {
        notification.app.map { .success($0) } ?? apps[notification.appID] ?? .failure(.unknown)
    }

    /// One catalog read per distinct app of the batch that its pushes do not carry (the
    /// outbox's), not per push.
    private func lookUpApps(of batch: [Notification]) -> [AppID: AppLookup] {
        var apps: [AppID: AppLookup] = [:]
        for notification in batch where notification.app == nil && apps[notification.appID] == nil {
            let id = notification.appID
            do {
                apps[id] = try catalog.app(id: id).map { .success($0) } ?? .failure(.unknown)
            } catch {
                logger.error("app catalog lookup failed", metadata: ["app": "\(id)", "error": "\(error)"])
                apps[id] = .failure(.catalogUnavailable("\(error)"))
            }
        }
        return apps
    }

    private typealias AppLookup = Result<RegisteredApp, AppLookupFailure>

    private enum AppLookupFailure: Error {
        case unknown
        case catalogUnavailable(String)
    }
}
