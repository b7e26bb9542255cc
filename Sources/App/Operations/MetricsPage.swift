import CoreMetrics
import PushCore

/// `GET /metrics`: every metric of this process (a node of several exposes its own) in
/// Prometheus' text format, the store's gauges read first (see `StoreGauges`). Behind
/// `OperatorOnly`.
struct MetricsPage: RequestHandler {
    let metrics: OperatorMetrics
    let gauges: StoreGauges
    let store: any Store
    /// The FastCGI connections open now (nil: unknown).
    let openConnections: @Sendable () -> Int?

    func handle(_ request: Request) -> Response {
        guard Self.isPagePath(request.path) else {
            return .text(404, "not found: this node's metrics are /metrics (or /metrics/node/K, which nginx sends to node K)")
        }
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "use GET", headers: [("Allow", "GET, HEAD")])
        }
        gauges.refresh(from: store)
        if let open = openConnections() {
            Gauge(label: "pushgate_fastcgi_connections", factory: metrics.factory).record(open)
        }
        return Response(
            status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
            body: request.method == "HEAD" ? [] : metrics.exposition())
    }

    /// `/metrics`, or `/metrics/node/K`: with several nodes behind one nginx, nginx passes that
    /// path to node K alone (the node answers it as its own `/metrics`).
    static func isPagePath(_ path: String) -> Bool {
        if path == "/metrics" { return true }
        let prefix = "/metrics/node/"
        guard path.hasPrefix(prefix) else { return false }
        let number = path.dropFirst(prefix.count)
        return (1...2).contains(number.count) && number.allSatisfy { ("0"..."9").contains($0) } && number.first != "0"
    }
}
