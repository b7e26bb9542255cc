import Logging
import PushAPI
import PushCore
import PushCrypto
import PushStore

/// What the dialects need besides their thread's store, shared by every responder thread.
struct RouteServices: Sendable {
    let configuration: Configuration
    /// The process's one delivery router. Dialects that push while the caller waits wrap it in
    /// a `PruningDeliverer` over their thread's store; fan-out goes through the outbox instead.
    let deliverer: any Deliverer
    let logger: Logger
    /// Wakes the outbox worker after a fan-out was queued (it polls otherwise).
    var wakeOutbox: @Sendable () -> Void = {}
}

/// Which dialect answers which path. One router per responder thread, over that thread's store.
enum Routes {
    static func router(store: SQLiteStore, services: RouteServices) -> Router {
        let reporter = TokenReporter(apps: store, accounts: store)
        let senders = SenderAuthorization(keys: store, digest: SenderKeyMaterial.digest(of:))
        _ = senders  // the send-side dialects take it
        let identifiers = RandomIdentifier(randomBytes: { try SecureRandom.bytes($0) })
        return Router(routes: [
            .init(prefix: "/healthz", handler: HealthCheck()),
            .init(prefix: TokenReporter.queryStylePrefix, handler: reporter),
            .init(prefix: TokenReporter.pathStylePrefix, handler: reporter),
            .init(prefix: AccountRemovalReporter.prefix, handler: AccountRemovalReporter(accounts: store)),
            .init(prefix: BeamsClientAPI.prefix, handler: BeamsClientAPI(store: store, identifiers: identifiers)),
            .init(
                prefix: BeamsPublishAPI.prefix,
                handler: BeamsPublishAPI(
                    store: store, senders: senders, identifiers: identifiers, wakeOutbox: services.wakeOutbox)),
        ])
    }
}
