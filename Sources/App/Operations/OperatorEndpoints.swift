import PushAPI
import PushCrypto

/// Every operator endpoint, in one place: `/healthz` (liveness, no store work) and `/readyz`
/// (the database answers with this schema) for load balancers, and `/metrics` (also
/// `/metrics/node/K`, which nginx sends to node K) and `/status` behind `OperatorAccess`:
/// loopback until an operator key exists, then an operator key.
enum OperatorEndpoints {
    static func routes(store: any Store, services: RouteServices) -> [Router.Route] {
        let readiness = Readiness(store: store, queuedWrites: services.queuedWrites)
        let access = OperatorAccess(keys: store, digest: SenderKeyMaterial.digest(of:))
        let gauges = services.storeGauges ?? StoreGauges(factory: services.metrics.factory, logger: services.logger)
        return [
            .init("/healthz/{path...}", HealthCheck(), methods: ["GET", "HEAD"]),
            .init(
                "/readyz/{path...}", ReadinessCheck(notReadyReason: readiness.notReadyReason), methods: ["GET", "HEAD"]),
            .init(
                "/metrics/{path...}",
                OperatorOnly(
                    access: access,
                    page: MetricsPage(
                        metrics: services.metrics, gauges: gauges, store: store,
                        openConnections: services.openConnections,
                        newDevices: NewDeviceGate(quota: services.newDeviceQuota, ceiling: services.deviceCeiling))),
                methods: ["GET", "HEAD"]),
            .init(
                "/status/{path...}",
                OperatorOnly(
                    access: access,
                    page: StatusPage(
                        store: store, startedAt: services.startedAt, matrixAnswers: services.matrixAnswers)),
                methods: ["GET", "HEAD"]),
        ]
    }
}
