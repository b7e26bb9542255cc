import Foundation
import Logging
import PushAPI
import PushCore
import PushCrypto
import PushDelivery
import PushStore

/// What the dialects need besides the store, shared by every responder thread.
struct RouteServices: Sendable {
    let configuration: Configuration
    /// The process's one delivery pipeline. Dialects that push while the caller waits take it
    /// counting under their name and pruning the store; fan-out goes through the outbox instead.
    let delivery: DeliveryPipeline
    let logger: Logger
    /// Wakes the outbox worker after a publish or event queued pushes (otherwise it looks at
    /// its next poll).
    var wakeOutbox: @Sendable () -> Void = {}
    /// Whether pnm2's one retry still fits before nginx gives up: `serve` sets the attempt's
    /// longest from the engine it runs.
    var pnm2RetryBudget = Pnm2RetryBudget.standard
    /// cospace password checks, shared by every responder thread (see VerifiedPasswordCache).
    var cospacePasswords = VerifiedPasswordCache()
    /// Failed cospace logins of the whole process, counted before any hashing.
    var loginThrottle = LoginThrottle()
    /// New devices per client address, counted across the dialects that create them.
    var newDeviceQuota = NewDeviceQuota.unlimited
    /// The most devices one app may have (`PUSHGATE_MAX_DEVICES_PER_APP`); none by default.
    var deviceCeiling = AppDeviceCeiling.none
    /// The Token Reporter reports this process stored lately (see `StoredReports`).
    var storedReports = StoredReports()
    /// The writes the backend queues for batches, whose stalls `/readyz` reports; nil when
    /// every write is its own transaction.
    var queuedWrites: (any QueuedWrites)? = nil
    /// The process's metrics, which `/metrics` shows.
    var metrics = OperatorMetrics()
    /// The store's gauges for `/metrics`, shared so that they are read once a second at most.
    var storeGauges: StoreGauges? = nil
    /// The Matrix dialect's last answers, which `/status` shows.
    var matrixAnswers = MatrixAnswerLog()
    /// When this process started (`/status` shows its uptime).
    var startedAt = Date()
    /// The FastCGI connections this process holds open now, for `/metrics`.
    var openConnections: @Sendable () -> Int? = { nil }
}

/// Which endpoint answers which path: serve's one router, over the process's one store.
enum Routes {
    static func router(store: any Store, services: RouteServices) -> Router {
        let subscriptions = WebPushSubscriptionCheck(
            endpoints: services.configuration.webPushEndpoints, isP256Point: P256PublicPoint.isValid)
        let gate = NewDeviceGate(quota: services.newDeviceQuota, ceiling: services.deviceCeiling)
        let reporter = TokenReporter(
            apps: store, accounts: store, gate: gate, stored: services.storedReports,
            subscriptions: subscriptions)
        let senders = SenderAuthorization(keys: store, digest: SenderKeyMaterial.digest(of:))
        let bridgeApps = BridgeApps(
            apns: services.configuration.bridgeAPNsApp, fcm: services.configuration.bridgeFCMApp)
        let pnm2 = SenderOnly(
            Pnm2Gateway(
                apps: store, directory: store, deliverer: services.delivery.sending(as: "pnm2", devices: store),
                subscriptions: subscriptions, budget: services.pnm2RetryBudget),
            senders: senders)
        let matrix = MatrixGateway(
            apps: store, directory: store,
            deliverer: services.delivery.sending(as: "matrix", devices: store),
            webPushSubscriptions: subscriptions, homeservers: services.configuration.matrixHomeservers,
            answers: services.matrixAnswers)
        let bridge = NotificationBridge(
            apps: store, subscriptions: store, bridgeApps: bridgeApps, topics: services.configuration.bridgeTopics,
            devices: store, gate: gate)
        let topics = SenderOnly(
            TopicPublisher(subscriptions: store, bridgeApps: bridgeApps, queued: services.wakeOutbox), senders: senders)
        // The most specific route takes a path, whatever the order here (see RouteTable); a
        // dialect's `{path...}` route takes what its named routes do not, to refuse it in its
        // group's shape. Each request logs on a logger of its own made from services.logger.
        let dialects = [
            RouteGroup(errors: ReporterErrors(), reporter.routes + AccountRemovalReporter(accounts: store).routes),
            RouteGroup(errors: BridgeErrors(), bridge.routes + topics.routes),
            cospaceGroup(store: store, services: services, senders: senders),
            RouteGroup(errors: Pnm2Errors(), pnm2.routes),
            beamsGroup(store: store, services: services, subscriptions: subscriptions, gate: gate, senders: senders),
            RouteGroup(errors: MatrixErrors(answers: services.matrixAnswers), matrix.routes),
        ]
        return Router(
            routes: OperatorEndpoints.routes(store: store, services: services) + dialects.flatMap(\.routes),
            logger: services.logger)
    }

    /// cospace's device registrations and its events.
    private static func cospaceGroup(
        store: any Store, services: RouteServices, senders: SenderAuthorization
    ) -> RouteGroup {
        let cospacePasswords = services.cospacePasswords
        let cospaceLogin = CospaceAuthenticator(users: store, throttle: services.loginThrottle) {
            user, password, storedHash in
            cospacePasswords.verify(user: user, password: password, storedHash: storedHash)
        }
        let events = SenderOnly(
            PushEvents(publisher: CospaceEventPublisher(users: store, outbox: store, notify: services.wakeOutbox)),
            senders: senders)
        let registrations = PushRegistrations(
            users: store, authenticator: cospaceLogin, senderID: services.configuration.fcmSenderID,
            fcmApp: services.configuration.cospaceFCMApp.flatMap { AppID($0) })
        return RouteGroup(errors: CospaceErrors(), registrations.routes + events.routes)
    }

    /// The Beams device API, the old client API, publishes (to interests and to users) and
    /// user removal.
    private static func beamsGroup(
        store: any Store, services: RouteServices, subscriptions: WebPushSubscriptionCheck, gate: NewDeviceGate,
        senders: SenderAuthorization
    ) -> RouteGroup {
        let identifiers = RandomIdentifier(randomBytes: { try SecureRandom.bytes($0) })
        let devices = BeamsDeviceAPI(
            store: store, identifiers: identifiers, verifiedClaims: HS256.verifiedClaims,
            now: { Int64(Date().timeIntervalSince1970) }, subscriptions: subscriptions,
            vapidPublicKey: { try? VAPIDKey(pem: $0).publicKeyBase64URL() }, gate: gate)
        let users = SenderOnly(BeamsUserAPI(store: store), senders: senders)
        let publishes = SenderOnly(
            BeamsPublishAPI(store: store, identifiers: identifiers, wakeOutbox: services.wakeOutbox), senders: senders)
        let userPublishes = SenderOnly(
            BeamsUserPublishAPI(store: store, identifiers: identifiers, wakeOutbox: services.wakeOutbox),
            senders: senders)
        let clients = BeamsClientAPI(store: store, identifiers: identifiers, gate: gate)
        let routes = devices.routes + clients.routes + publishes.routes + userPublishes.routes + users.routes
        return RouteGroup(errors: BeamsErrors(), routes)
    }
}
