import CoreMetrics
import PushCore

/// The delivery side's counters and histograms (`GET /metrics`), made through the metrics
/// factory it is given: `serve` passes the Prometheus one it bootstraps; commands and tests
/// that pass none count nothing. Labels stay few and bounded: platforms, dialects, results,
/// HTTP statuses and the upstreams' documented reasons; never a token, device or message.
public struct DeliveryMetrics: Sendable {
    private let handles: MetricHandles

    public init(factory: any MetricsFactory) {
        handles = MetricHandles(factory: factory)
    }

    /// Counts nothing.
    public static var off: DeliveryMetrics { DeliveryMetrics(factory: NOOPMetricsHandler.instance) }

    /// What became of one push for the dialect that sent it (its final word: after the pnm2
    /// retry, or the outbox's decision).
    public func countPush(provider: String, dialect: String, result: PushResultLabel) {
        handles.counter(
            "pushgate_pushes_total", [("provider", provider), ("dialect", dialect), ("result", result.rawValue)]
        ).increment()
    }

    /// A device whose token the upstream reported dead (pruned, unless re-registered since).
    public func countDeadToken(provider: String, reason: String) {
        handles.counter(
            "pushgate_tokens_pruned_total", [("provider", provider), ("reason", UpstreamReasonLabel.bounded(reason))]
        ).increment()
    }

    /// One answer of APNs or FCM to a push request, or the transport's failure to get one.
    func recordUpstreamAnswer(provider: Platform, status: String, reason: String, nanoseconds: UInt64) {
        handles.counter(
            "pushgate_upstream_answers_total",
            [("provider", provider.rawValue), ("status", status), ("reason", reason)]
        ).increment()
        handles.timer("pushgate_upstream_request_duration_seconds", [("provider", provider.rawValue)])
            .recordNanoseconds(Int64(clamping: nanoseconds))
    }

    /// One OAuth access-token request of the FCM side (`ok`, or `failed` with any other answer).
    func countAccessTokenRefresh(succeeded: Bool) {
        handles.counter("pushgate_fcm_access_token_refreshes_total", [("result", succeeded ? "ok" : "failed")])
            .increment()
    }
}
