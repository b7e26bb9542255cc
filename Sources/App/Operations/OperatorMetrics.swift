import CoreMetrics
import Foundation
import Prometheus
import PushDelivery
import PushStore

/// The process's metrics (`GET /metrics`): one Prometheus registry, and the swift-metrics
/// factory over it that every layer counts through. `serve` makes one and bootstraps the
/// metrics system with it, so that libraries counting through swift-metrics land here too.
struct OperatorMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Requests answered from the store take well under the default first bucket (5 ms).
        // In seconds as Doubles (see RequestMetrics.Handles.Endpoint), with the `le` labels
        // the `Duration` buckets had.
        factory.valueHistogramBuckets[RequestMetrics.durationLabel] = [
            0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
        ]
        // Batches of one write (a lone writer) to the writer's most (256).
        factory.valueHistogramBuckets[GroupCommitMetrics.batchSizeLabel] = [1, 2, 4, 8, 16, 32, 64, 128, 256]
        factory.durationHistogramBuckets[GroupCommitMetrics.waitLabel] = [
            .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
            .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
        ]
        self.factory = factory
        delivery = DeliveryMetrics(factory: factory)
    }

    /// Makes this the process's metrics system; once per process (`serve`).
    func bootstrap() {
        MetricsSystem.bootstrap(factory)
    }

    /// `pushgate_start_time_seconds`: when this process started (uptime is now minus it),
    /// `pushgate_build_info{version, commit}` 1: which build each node runs, and
    /// `pushgate_node_info{node}` 1: which node answered, so that a scrape of one node among
    /// several (`/metrics/node/K`) is labelled by the node itself, not only by its target.
    func recordStart(node: String) {
        Gauge(label: "pushgate_start_time_seconds", factory: factory).record(Date().timeIntervalSince1970)
        Gauge(
            label: "pushgate_build_info",
            dimensions: [("version", PushgateVersion.current), ("commit", PushgateVersion.commit)], factory: factory)
            .record(1)
        Gauge(label: "pushgate_node_info", dimensions: [("node", node)], factory: factory).record(1)
    }

    /// The delivery side's metrics, one set of kept metric objects for the whole process.
    let delivery: DeliveryMetrics

    /// The exposition text of every metric.
    func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }
}
