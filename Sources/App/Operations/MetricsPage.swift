import CoreMetrics
import PushAPI
import PushCore

/// `GET /metrics`: every metric of this process (a node of several exposes its own) in
/// Prometheus' text format, the store's gauges read first (see `StoreGauges`). Behind
/// `OperatorOnly`, on a route of GET and HEAD.
struct MetricsPage: DialectHandler {
    let metrics: OperatorMetrics
    let gauges: StoreGauges
    let store: any Store
    /// The FastCGI connections open now (nil: unknown).
    let openConnections: @Sendable () -> Int?
    /// The new-device quota and ceiling, whose refusals (and the ceiling's counts) are shown.
    var newDevices = NewDeviceGate.open

    /// A path other than the page's is not found, whatever the method.
    func checkAddress(_ request: Request, context: RequestContext) throws {
        guard Self.isPagePath(request.path) else {
            throw OperatorRefusal(
                .text(404, "not found: this node's metrics are /metrics (or /metrics/node/K, which nginx sends to node K)"))
        }
    }

    func respond(to request: Request, context: RequestContext) throws -> Response {
        gauges.refresh(from: store)
        if let open = openConnections() {
            Gauge(label: "pushgate_fastcgi_connections", factory: metrics.factory).record(open)
        }
        recordNewDevices()
        return Response(
            status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
            body: request.method == "HEAD" ? [] : metrics.exposition())
    }

    /// New devices refused since `serve` started, by why (an address past
    /// `PUSHGATE_NEW_DEVICES_PER_HOUR`, an app at `PUSHGATE_MAX_DEVICES_PER_APP`); with a
    /// ceiling set, each app's devices as the ceiling last counted them; with a quota set, the
    /// keys its three tables remember and the capacity of each.
    private func recordNewDevices() {
        let refused = [("address_quota", newDevices.quota.refused), ("app_ceiling", newDevices.ceiling.refused)]
        for (reason, count) in refused {
            Gauge(label: "pushgate_new_devices_refused", dimensions: [("reason", reason)], factory: metrics.factory)
                .record(count)
        }
        for (app, count) in newDevices.ceiling.devices {
            Gauge(label: "pushgate_app_devices", dimensions: [("app", app)], factory: metrics.factory).record(count)
        }
        // What the quota remembers, beside what each table may hold: a table at its capacity
        // forgets its oldest callers, so a flood from many addresses weakens the quota of all.
        let quota = newDevices.quota
        guard quota.limits.perHour != nil else { return }
        let networks = quota.rememberedNetworks
        for (table, count) in [("address", quota.rememberedAddresses), ("slash56", networks.per56), ("slash48", networks.per48)] {
            Gauge(label: "pushgate_new_device_quota_keys", dimensions: [("table", table)], factory: metrics.factory).record(count)
        }
        Gauge(label: "pushgate_new_device_quota_capacity", factory: metrics.factory).record(quota.limits.capacity)
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
