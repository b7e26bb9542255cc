import PushAPI
import PushCore

/// Which dialect answers which path. One router per responder thread, over that thread's store.
enum Routes {
    static func router(store: any TokenStore) -> Router {
        let reporter = TokenReporter(apps: store, accounts: store)
        return Router(routes: [
            .init(prefix: "/healthz", handler: HealthCheck()),
            .init(prefix: TokenReporter.queryStylePrefix, handler: reporter),
            .init(prefix: TokenReporter.pathStylePrefix, handler: reporter),
            .init(prefix: AccountRemovalReporter.prefix, handler: AccountRemovalReporter(accounts: store)),
        ])
    }
}
