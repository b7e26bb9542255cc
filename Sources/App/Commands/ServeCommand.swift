import ArgumentParser
import CoreMetrics
import FastCGI
import Foundation
import PushAPI
import PushCore
import PushCrypto
import PushDelivery
import PushStore

struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the FastCGI responder on PUSHGATE_SOCKET (nginx in front; see scripts/run).")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        // Before any thread starts (the delivery engine's, the outbox worker's): a SIGTERM must
        // reach the FastCGI server's wait, or the socket file would be left behind.
        FastCGIServer.blockTerminationSignals()
        let runtime = try Runtime(global)
        let configuration = runtime.configuration
        let logger = runtime.logger
        let applied = try runtime.migrate()
        for name in applied { logger.info("applied migration \(name)") }
        logger.info("open files allowed: \(DescriptorLimit.raiseToMaximum())")
        // What an operator checks first when pushes go astray: which file was read, which
        // database, and where pushes go (a test deployment left pointing at a mock, or a
        // sandbox URL in production). No secrets: the database password is shown as ***.
        let file = runtime.configurationFile ?? "(no file: environment and defaults)"
        let extraCA = configuration.caFile.map { ", extra CA file \($0)" } ?? ""
        let upstreams =
            "APNs \(configuration.apnsURL) (sandbox \(configuration.apnsSandboxURL)), FCM \(configuration.fcmURL)"
        logger.info("configuration \(file), database \(runtime.databaseDescription), \(upstreams)\(extraCA)")
        for (name, value) in configuration.summary {
            logger.debug("config \(name)=\(value)")
        }
        let upstreamWait = Double(configuration.upstreamLaneWaitMilliseconds) / 1000
        let server = FastCGIServer(
            configuration: FastCGIConfiguration(
                socketPath: configuration.socket, socketMode: UInt32(configuration.socketMode),
                socketGroup: try configuration.socketGroup.map(SocketGroup.id(of:)),
                threadCount: configuration.threads, maxBodyBytes: configuration.maxBodyBytes,
                lanes: [
                    // Stopping waits for the sends queued, running and parked: their wait, then as
                    // long as nginx waits for an answer (its fastcgi_read_timeout, 60 s).
                    LaneConfiguration(
                        lane: .upstream, threadCount: configuration.upstreamLaneThreads,
                        queueLimit: configuration.upstreamLaneQueue, queueWaitSeconds: upstreamWait,
                        drainTimeoutSeconds: upstreamWait + 60, parkedLimit: configuration.upstreamLaneParked,
                        parkedPushLimit: configuration.parkedPushLimit, responderBodyLimit: Self.sendCheckedOnResponderBytes),
                    // Logins that run the password hash (~0.1–0.7 s of a core each): a few
                    // threads, whatever arrives; the rest wait without a thread, or are told
                    // to try again. What waits is checked within nginx's read time-out.
                    LaneConfiguration(
                        lane: .passwords, threadCount: configuration.passwordCheckThreads,
                        queueLimit: Self.passwordLaneQueue, queueWaitSeconds: Self.passwordLaneWaitSeconds,
                        drainTimeoutSeconds: Self.passwordLaneWaitSeconds + 60),
                ],
                tcpAddress: configuration.listen))
        if let address = configuration.listen, !address.isLoopback {
            // FastCGI has no authentication: whoever reaches this port is trusted as nginx.
            logger.warning(
                "FastCGI listens on \(address), reachable from the network: allow only your nginx hosts to it (firewall)"
            )
        }
        logger.info(
            "serving on \(server.configuration.listenDescription) with \(configuration.threads) threads, database \(runtime.databaseDescription)"
        )
        // Each responder thread gets a store of its own from the backend (for a file, its own
        // connection to read on, writing through the one shared writer).
        // nginx closes its side when a client goes away mid-request; writing the answer must
        // then fail with EPIPE, not end the process. libfcgi's FCGX_Init installs a SIGPIPE
        // handler too; this states the policy for every other socket the process writes to.
        signal(SIGPIPE, SIG_IGN)
        // The process's one metrics registry (GET /metrics), passed to what counts.
        let metrics = OperatorMetrics()
        metrics.bootstrap()
        metrics.recordStart(node: configuration.effectiveNodeID)
        // Every background part, started in this order and stopped in the reverse one (the
        // outbox worker before the engine it delivers through, housekeeping first of all).
        let services = ServiceList(logger: logger)
        defer { services.stopAll() }
        // The backend's own services (a checkpointer for a file) come first: every store
        // relies on them. Its batched writes count into /metrics.
        let database = try runtime.backend.serving(
            metrics: GroupCommitMetrics(factory: metrics.factory), warn: { logger.warning("\($0)") })
        for service in database.services {
            try services.start(service)
        }
        let openStore = database.openStore
        let deliveryStore = try openStore()
        let events = try services.start(RecordingDeliveryEvents(records: try openStore(), logger: logger))
        let delivery = try services.start(
            try DeliveryStack(
                configuration: configuration, catalog: deliveryStore, events: events,
                providerTokenArchive: try openStore(), metrics: metrics.delivery, logger: logger))
        // One outbox worker per process, on its own connection: queued pushes left by an
        // earlier run (or a crash) go out as soon as the responder starts.
        // Where several nodes share the database they may deliver from one outbox: a starting
        // worker takes back only its own node's claims, never a live node's; a dead node's rows
        // come back when their lease runs out. Their publishes wake this worker, and polling
        // every second covers a listener that is down.
        let nodeID = configuration.effectiveNodeID
        let shared = runtime.backend.isSharedByNodes
        logger.info("outbox node id \(nodeID)")
        let outbox = try services.start(
            OutboxWorker(
                store: CountingOutboxStore(deliveryStore, catalog: deliveryStore, metrics: metrics.delivery),
                deliverer: delivery.router,
                configuration: OutboxWorkerConfiguration(
                    leaseMilliseconds: Int64(configuration.outboxLeaseSeconds) * 1000,
                    idlePollMilliseconds: shared ? 1_000 : 5_000,
                    releaseClaimsOnStart: shared ? .thisNode : .everyNode, nodeID: nodeID),
                logger: logger))
        if let wakes = database.outboxWakes(onWake: { outbox.notify() }) {
            try services.start(wakes)
        }
        // Nothing grows forever: devices nobody reports, unregistered apps' tokens and old
        // dead letters go, on a connection of the housekeeper's own.
        try services.start(
            Housekeeper(
                store: try openStore(),
                policy: RetentionPolicy(
                    deviceDays: configuration.deviceRetentionDays, deadLetterDays: configuration.deadLetterRetentionDays),
                logger: logger))
        logger.info("services: \(services.names.joined(separator: ", "))")
        // Runs of the password hash itself (a remembered success or a throttled login runs none).
        let passwordChecks = Counter(label: "pushgate_password_checks_total", factory: metrics.factory)
        let routeServices = RouteServices(
            configuration: configuration, deliverer: delivery.router, logger: logger, wakeOutbox: { outbox.notify() },
            pnm2RetryBudget: Pnm2RetryBudget(
                answerWithinSeconds: Pnm2RetryBudget.standard.answerWithinSeconds,
                attemptSeconds: delivery.engineConfiguration.requestTimeoutSeconds),
            cospacePasswords: VerifiedPasswordCache(verify: { password, storedHash in
                passwordChecks.increment()
                return PasswordHash.verify(password: password, against: storedHash)
            }),
            loginThrottle: LoginThrottle(limits: .init(failuresPerWindow: configuration.loginFailuresPerMinute)),
            queuedWrites: database.queuedWrites, metrics: metrics,
            storeGauges: StoreGauges(factory: metrics.factory, logger: logger),
            openConnections: { [listening = server.configuration] in OpenConnections.count(for: listening) })
        try server.run(
            makeHandler: { index in
                // The responder threads' handlers first, then each lane's (FastCGIServer.start).
                let thread =
                    index < configuration.threads
                    ? "responder"
                    : index < configuration.threads + configuration.upstreamLaneThreads
                        ? RequestLane.upstream.name : RequestLane.passwords.name
                return RequestMetrics(
                    router: Routes.router(store: try openStore(), services: routeServices), factory: metrics.factory,
                    thread: thread)
            },
            logger: logger)
        logger.info("stopped")
    }

    /// Logins that may wait for a password lane thread, and for how long, before they are
    /// answered 503 `service-busy`: a phone's login retries; an attacker's waits in nginx.
    static let passwordLaneQueue = 64
    static let passwordLaneWaitSeconds = 10.0

    /// pnm2 sends with bodies up to this size (a push is a few hundred bytes; a multisend of a
    /// few dozen fits) are checked on the responder thread that read them while the upstream
    /// lane has room, and only parked on the lane: one hand-off fewer per send. Larger
    /// multisends, whose checking takes milliseconds of a core, stay on the lane's threads.
    static let sendCheckedOnResponderBytes = 16_384
}
