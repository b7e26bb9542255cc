import CoreMetrics
import Foundation
import Logging
import PushCore

/// The gauges read from the store when Prometheus scrapes (the outbox by state, the age of
/// the most overdue push, dead letters; each APNs app's provider-token age and certificate
/// end): an aggregate query and the app catalog, kept for a second, so that several
/// scrapers (or a reload storm) cost the database that much once a second at most.
/// Shared by every responder thread; each passes its own store.
final class StoreGauges: @unchecked Sendable {
    // @unchecked: `refreshedAt` is only touched under `lock`; the rest is immutable.
    private let factory: any MetricsFactory
    private let logger: Logger
    private let lock = NSLock()
    private var refreshedAt: UInt64?
    static let lifetimeNanoseconds: UInt64 = 1_000_000_000

    init(factory: any MetricsFactory, logger: Logger) {
        self.factory = factory
        self.logger = logger
    }

    /// Reads the store unless a read less than a second ago stands.
    func refresh(from store: any Store) {
        lock.lock()
        defer { lock.unlock() }
        let now = DispatchTime.now().uptimeNanoseconds
        if let refreshedAt, now &- refreshedAt < Self.lifetimeNanoseconds { return }
        let wallMilliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        do {
            let outbox = try store.outboxSummary(now: wallMilliseconds)
            gauge("pushgate_outbox_rows", [("state", "queued")]).record(outbox.queued)
            gauge("pushgate_outbox_rows", [("state", "retrying")]).record(outbox.retrying)
            gauge("pushgate_outbox_rows", [("state", "dead")]).record(outbox.dead)
            gauge("pushgate_outbox_due_rows").record(outbox.due)
            gauge("pushgate_outbox_dead_letters").record(outbox.dead)
            let overdue = outbox.oldestDueAt.map { max(0, Double(wallMilliseconds - $0) / 1000) } ?? 0
            gauge("pushgate_outbox_oldest_due_seconds").record(overdue)
            let wallSeconds = wallMilliseconds / 1000
            for state in try AppCredentialState.all(catalog: store, archive: store) {
                let app = [("app", state.app.id.rawValue)]
                if let issuedAt = state.providerTokenIssuedAt {
                    gauge("pushgate_apns_provider_token_age_seconds", app).record(max(0, wallSeconds - issuedAt))
                }
                if let end = state.certificateNotAfter {
                    gauge("pushgate_apns_certificate_expiry_timestamp_seconds", app).record(end.timeIntervalSince1970)
                }
                gauge("pushgate_app_credentials_loaded", app).record(state.problem == nil ? 1 : 0)
            }
            refreshedAt = now
        } catch {
            // The last values stay; the error count tells the scrape they are stale.
            Counter(label: "pushgate_metrics_store_errors_total", factory: factory).increment()
            logger.warning("metrics: reading the store failed: \(error)")
        }
    }

    private func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> Gauge {
        Gauge(label: label, dimensions: dimensions, factory: factory)
    }
}
