import Logging
import PushAPI
import PushCore
import PushCrypto
import PushDelivery
import PushStore

/// What the dialects need besides their thread's store, shared by every responder thread.
struct RouteServices: Sendable {
    let configuration: Configuration
    /// The process's one delivery router. Dialects that push while the caller waits wrap it in
    /// a `PruningDeliverer` over their thread's store; fan-out goes through the outbox instead.
    let deliverer: any Deliverer
    let logger: Logger
}

/// Which dialect answers which path. One router per responder thread, over that thread's store.
enum Routes {
    static func router(store: SQLiteStore, services: RouteServices) -> Router {
        let reporter = TokenReporter(apps: store, accounts: store)
        let senders = SenderAuthorization(keys: store, digest: SenderKeyMaterial.digest(of:))
        _ = senders  // the send-side dialects take it
        let pnm2 = Pnm2Gateway(
            apps: store, directory: store,
            deliverer: PruningDeliverer(services.deliverer, devices: store, logger: services.logger), senders: senders)
        return Router(routes: [
            .init(prefix: "/healthz", handler: HealthCheck()),
            .init(prefix: TokenReporter.queryStylePrefix, handler: reporter),
            .init(prefix: TokenReporter.pathStylePrefix, handler: reporter),
            .init(prefix: AccountRemovalReporter.prefix, handler: AccountRemovalReporter(accounts: store)),
            .init(prefix: Pnm2Gateway.prefix, handler: pnm2),
        ])
    }
}
