import Logging
import PushCore

/// The `Deliverer` the rest of pushgate uses: takes each push's app (the one it carries, or
/// the catalog's), hands it to the client of the app's platform, runs the whole batch concurrently over the one transport, and answers
/// the results in the batch's order. Create one per process: it owns the credential cache and
/// shares the token caches it is given.
public final class DeliveryRouter: Deliverer {
    private let catalog: AppCatalog
    private let clients: [Platform: PlatformDeliverer]
    private let logger: Logger
    private let trouble: DeliveryTroubleLog

    /// The usual wiring: an `APNsClient`, an `FCMClient` and a `WebPushClient` over `transport`.
    public convenience init(
        catalog: AppCatalog, transport: HTTP2Transport, configuration: DeliveryConfiguration = DeliveryConfiguration(),
        providerTokens: ProviderTokenCache, accessTokens: AccessTokenCache,
        events: DeliveryEvents = IgnoredDeliveryEvents(), clock: UnixClock = .system, metrics: DeliveryMetrics = .off,
        logger: Logger
    ) {
        let credentials = CredentialCache()
        let clients: [PlatformDeliverer] = [
            APNsClient(
                transport: MeasuredTransport(inner: transport, provider: .apns, metrics: metrics),
                endpoints: configuration.apns, providerTokens: providerTokens,
                credentials: credentials, events: events, clock: clock, logger: logger),
            FCMClient(
                transport: MeasuredTransport(inner: transport, provider: .fcm, metrics: metrics),
                baseURL: configuration.fcmURL, accessTokens: accessTokens,
                credentials: credentials, clock: clock, logger: logger),
            WebPushClient(
                transport: MeasuredTransport(inner: transport, provider: .web, metrics: metrics),
                endpoints: configuration.webPushEndpoints, tokens: VAPIDTokenCache(clock: clock),
                credentials: credentials, clock: clock, logger: logger),
        ]
        self.init(catalog: catalog, clients: clients, logger: logger)
    }

    /// Any set of platform clients, one per platform.
    public init(catalog: AppCatalog, clients: [PlatformDeliverer], logger: Logger) {
        self.catalog = catalog
        self.clients = Dictionary(clients.map { ($0.platform, $0) }, uniquingKeysWith: { _, last in last })
        self.logger = logger
        trouble = DeliveryTroubleLog(logger: logger)
    }

    /// Blocks until every push is answered. Never call it from a transport completion (the
    /// engine thread would wait for itself).
    public func deliver(_ batch: [PushCore.Notification]) -> [DeliveryResult] {
        let collector = OrderedCollector<DeliveryResult>(count: batch.count)
        send(batch, into: collector)
        return collector.wait()
    }

    /// Returns once every push is handed to its client; `completion` gets the results on
    /// `home`, so the engine thread that answers the last push never runs the caller's work.
    public func deliver(
        _ batch: [PushCore.Notification], logger: Logger, home: any HomeThread,
        completion: @escaping @Sendable ([DeliveryResult]) -> Void
    ) {
        guard !batch.isEmpty else { return completion([]) }
        let collector = OrderedCollector<DeliveryResult>(count: batch.count) { results in
            home.resume { completion(results) }
        }
        send(batch, into: collector)
    }

    /// Hands every push of `batch` to its client; each result goes to `collector` at its index.
    private func send(_ batch: [PushCore.Notification], into collector: OrderedCollector<DeliveryResult>) {
        let apps = lookUpApps(Set(batch.lazy.filter { $0.app == nil }.map(\.appID)))
        for (index, notification) in batch.enumerated() {
            send(notification, app: app(of: notification, among: apps)) { collector.set(index, $0) }
        }
    }

    /// The fire-and-forget form for the outbox: returns at once, `completion` runs once, maybe
    /// on the transport's thread.
    public func submit(_ notification: PushCore.Notification, completion: @escaping @Sendable (DeliveryResult) -> Void) {
        let apps = notification.app == nil ? lookUpApps([notification.appID]) : [:]
        send(notification, app: app(of: notification, among: apps), completion: completion)
    }

    /// The app a dialect already found wins: looking it up again would only repeat its read.
    private func app(
        of notification: PushCore.Notification, among apps: [AppID: Result<RegisteredApp, AppLookupFailure>]
    ) -> Result<RegisteredApp, AppLookupFailure> {
        notification.app.map { .success($0) } ?? apps[notification.appID] ?? .failure(.unknown)
    }

    private func send(
        _ notification: PushCore.Notification, app: Result<RegisteredApp, AppLookupFailure>,
        completion: @escaping @Sendable (DeliveryResult) -> Void
    ) {
        switch app {
        case .success(let app):
            guard let client = clients[app.platform] else {
                return completion(.rejected(status: 500, reason: "no deliverer for platform \(app.platform.rawValue)"))
            }
            client.send(notification, app: app) { [trouble] result in
                trouble.observe(result, app: app)
                completion(result)
            }
        case .failure(.unknown):
            completion(.rejected(status: 400, reason: "unknown app \(notification.appID)"))
        case .failure(.catalogUnavailable(let reason)):
            completion(.retryLater(reason: "app catalog unavailable: \(reason)", afterSeconds: nil))
        }
    }

    /// One catalog read per distinct app of the batch, not per push.
    private func lookUpApps(_ ids: Set<AppID>) -> [AppID: Result<RegisteredApp, AppLookupFailure>] {
        var apps: [AppID: Result<RegisteredApp, AppLookupFailure>] = [:]
        for id in ids {
            do {
                apps[id] = try catalog.app(id: id).map { .success($0) } ?? .failure(.unknown)
            } catch {
                logger.error("app catalog lookup failed", metadata: ["app": "\(id)", "error": "\(error)"])
                apps[id] = .failure(.catalogUnavailable("\(error)"))
            }
        }
        return apps
    }

    private enum AppLookupFailure: Error {
        case unknown
        case catalogUnavailable(String)
    }
}
