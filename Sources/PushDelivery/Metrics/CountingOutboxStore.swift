import PushCore

/// The outbox worker's store, counting every outcome it completes as
/// `pushgate_pushes_total{dialect}` (the dialect that queued the push: `beams`, `bridge`,
/// `cospace`), once its transaction has committed. Everything else passes through.
public struct CountingOutboxStore: OutboxStore {
    private let inner: any OutboxStore
    private let providers: ProviderLabel
    private let metrics: DeliveryMetrics

    public init(_ inner: any OutboxStore, catalog: any AppCatalog, metrics: DeliveryMetrics) {
        self.inner = inner
        self.providers = ProviderLabel(catalog: catalog)
        self.metrics = metrics
    }

    public func complete(_ outcomes: [(delivery: OutboxDelivery, outcome: OutboxOutcome)], now: Int64) throws {
        try inner.complete(outcomes, now: now)
        for (delivery, outcome) in outcomes {
            let provider = providers.of(delivery.notification)
            metrics.countPush(
                provider: provider, dialect: Self.dialect(delivery.source), result: PushResultLabel(outcome))
            if case .deadToken(let reason, _) = outcome { metrics.countDeadToken(provider: provider, reason: reason) }
        }
    }

    /// "beams:publish" → "beams"; a source of no known dialect → "other" (the label stays bounded).
    static func dialect(_ source: String) -> String {
        let name = source.prefix { $0 != ":" }
        return ["beams", "bridge", "cospace"].contains(name) ? String(name) : "other"
    }

    public func enqueue(_ message: OutboxMessage, deviceIDs: [Int64]) throws -> Int {
        try inner.enqueue(message, deviceIDs: deviceIDs)
    }
    public func claimDue(limit: Int, now: Int64, lease: Int64, node: String) throws -> [OutboxDelivery] {
        try inner.claimDue(limit: limit, now: now, lease: lease, node: node)
    }
    public func continueFanOuts(limit: Int, now: Int64, lease: Int64, node: String) throws -> FanOutProgress {
        try inner.continueFanOuts(limit: limit, now: now, lease: lease, node: node)
    }
    public func fanOutsInProgress() throws -> Int { try inner.fanOutsInProgress() }
    public func nextDueAt() throws -> Int64? { try inner.nextDueAt() }
    public func releaseClaims(heldBy node: String?) throws -> Int { try inner.releaseClaims(heldBy: node) }
    public func claims() throws -> [OutboxClaim] { try inner.claims() }
    public func pendingCount() throws -> Int { try inner.pendingCount() }
    public func deadLetters(limit: Int) throws -> [OutboxDeadLetter] { try inner.deadLetters(limit: limit) }
    public func retryDeadLetters() throws -> Int { try inner.retryDeadLetters() }
    public func deliveryLog(limit: Int) throws -> [DeliveryLogEntry] { try inner.deliveryLog(limit: limit) }
    public func trimDeliveryLog(keeping: Int) throws -> Int { try inner.trimDeliveryLog(keeping: keeping) }
    public func deleteUnusedPayloads() throws -> Int { try inner.deleteUnusedPayloads() }
}
