import Logging
import PushCore

/// Counts the result of every push a dialect sends while its caller waits (pnm2), as
/// `pushgate_pushes_total{dialect}`; each attempt counts, so a push retried once and then
/// delivered is one `retry` and one `delivered`.
public struct CountingDeliverer: Deliverer {
    private let inner: any Deliverer
    private let dialect: String
    private let providers: ProviderLabel
    private let metrics: DeliveryMetrics

    public init(_ inner: any Deliverer, dialect: String, catalog: any AppCatalog, metrics: DeliveryMetrics) {
        self.inner = inner
        self.dialect = dialect
        self.providers = ProviderLabel(catalog: catalog)
        self.metrics = metrics
    }

    public func deliver(_ batch: [Notification]) -> [DeliveryResult] {
        let results = inner.deliver(batch)
        count(batch, results)
        return results
    }

    public func deliver(
        _ batch: [Notification], logger: Logger, home: any HomeThread,
        completion: @escaping @Sendable ([DeliveryResult]) -> Void
    ) {
        inner.deliver(batch, logger: logger, home: home) { results in
            count(batch, results)
            completion(results)
        }
    }

    private func count(_ batch: [Notification], _ results: [DeliveryResult]) {
        for (notification, result) in zip(batch, results) {
            let provider = providers.of(notification)
            metrics.countPush(provider: provider, dialect: dialect, result: PushResultLabel(result))
            if case .deadToken(let reason, _) = result { metrics.countDeadToken(provider: provider, reason: reason) }
        }
    }
}
