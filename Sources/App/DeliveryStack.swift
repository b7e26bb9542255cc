import Logging
import PushCore
import PushDelivery

/// The delivery side of one process: the one curl engine, the one provider-token and
/// access-token cache (Apple answers TooManyProviderTokenUpdates to gateways that mint a JWT
/// per thread), and the pipeline every dialect and the outbox push through. (Dialects that
/// push while the caller waits take it `sending(as:devices:)`; the outbox prunes itself.)
final class DeliveryStack: Sendable {
    let engine: CurlEngine
    /// What the engine runs with: its time-out per request also bounds pnm2's retry.
    let engineConfiguration: CurlEngineConfiguration
    let pipeline: DeliveryPipeline
    let accessTokens: AccessTokenCache

    init(
        configuration: Configuration, catalog: any AppCatalog, events: any DeliveryEvents = IgnoredDeliveryEvents(),
        providerTokenArchive: (any ProviderTokenArchive)? = nil, metrics: DeliveryMetrics = .off, logger: Logger
    ) throws {
        var engineConfiguration = CurlEngineConfiguration(extraCAFile: configuration.caFile)
        // libcurl's own CPU per transfer bounds one engine thread; a second one on another
        // core adds throughput (figures: docs/performance.md, the delivery rows).
        engineConfiguration.threads = configuration.deliveryThreads
        self.engineConfiguration = engineConfiguration
        engine = try CurlEngine(configuration: engineConfiguration, logger: logger)
        accessTokens = AccessTokenCache(transport: RefreshCountingTransport(engine, metrics: metrics), logger: logger)
        pipeline = DeliveryPipeline(
            catalog: catalog, transport: engine,
            configuration: DeliveryConfiguration(
                apns: APNsEndpoints(production: configuration.apnsURL, sandbox: configuration.apnsSandboxURL),
                fcmURL: configuration.fcmURL, webPushEndpoints: configuration.webPushEndpoints),
            providerTokens: ProviderTokenCache(archive: providerTokenArchive, logger: logger), accessTokens: accessTokens,
            events: events, metrics: metrics,
            logger: logger)
    }

    /// The engine runs from `init` on.
    func start() {}

    func stop() {
        engine.shutdown()
    }
}

extension DeliveryStack: Service {
    var serviceName: String { "delivery engine" }
}
