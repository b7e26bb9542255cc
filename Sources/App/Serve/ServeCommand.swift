import ArgumentParser
import FastCGI
import Foundation
import PushCore
import PushStore

/// `pushgate serve`: configuration, then the store, delivery, the router and the services,
/// each made in a few lines by the files beside this one; the FastCGI server runs last and
/// returns on SIGTERM, and the services stop in the reverse order of their start.
///
/// Not swift-service-lifecycle's `ServiceGroup`: it runs services as async tasks and stops
/// them by cancellation, while every part of serve is a thread of its own (responders, lanes,
/// the curl engine, the outbox worker) started and stopped synchronously, and the signals are
/// taken with `sigwait` by the FastCGI server's thread. `ServiceList` is that order, no more.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the FastCGI responder on PUSHGATE_SOCKET (nginx in front; see scripts/run).")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        // Before any thread starts (the delivery engine's, the outbox worker's): a SIGTERM must
        // reach the FastCGI server's wait, or the socket file would be left behind.
        FastCGIServer.blockTerminationSignals()
        // nginx closes its side when a client goes away mid-request; writing the answer must
        // then fail with EPIPE, not end the process (libfcgi's FCGX_Init says the same).
        signal(SIGPIPE, SIG_IGN)
        // Before any thread starts too: taking it unsets LISTEN_*, and setenv is not thread-safe.
        let activated: ActivatedSocket?
        do {
            activated = try ActivatedSocket.take()
        } catch {
            throw CommandFailure("\(error)")
        }
        let runtime = try Runtime(global)
        let configuration = runtime.configuration
        let logger = runtime.logger
        if let refusal = configuration.listenRefusal { throw CommandFailure(refusal) }
        try ServeStartup(runtime: runtime).prepare()
        let server = FastCGIServer(
            configuration: try ServeStartup.fastCGIConfiguration(configuration, activatedSocket: activated))
        ServeStartup.announce(server.configuration, runtime: runtime)

        let metrics = OperatorMetrics()
        metrics.bootstrap()
        metrics.recordStart(node: configuration.effectiveNodeID)
        let services = ServiceList(logger: logger)
        defer { services.stopAll() }

        let database = try runtime.backend.serving(
            metrics: GroupCommitMetrics(factory: metrics.factory), warn: { logger.warning("\($0)") })
        for service in database.services {
            try services.start(service)
        }
        let background = try BackgroundServices.start(
            in: services, runtime: runtime, database: database, metrics: metrics)
        logger.info("services: \(services.names.joined(separator: ", "))")
        let routeServices = background.routeServices(
            configuration: configuration, database: database, metrics: metrics, logger: logger,
            listening: server.configuration)
        // One router for every thread, over the one store; each thread counts its own requests
        // (its metric handles are its own, see RequestMetrics).
        let router = Routes.router(store: database.store, services: routeServices)
        let threads = ThreadKinds(server.configuration)
        try server.run(
            makeHandler: { index in
                RequestMetrics(router: router, factory: metrics.factory, thread: threads.name(of: index))
            },
            logger: logger)
        logger.info("stopped")
    }
}

/// Which kind of thread a handler index is: the responder threads' come first, then each
/// lane's in the order the server's configuration lists them (see `FastCGIServer.start`), read
/// from that configuration, not listed again. The metrics of busy threads are labelled by it.
struct ThreadKinds {
    let responders: Int
    let lanes: [(name: String, threads: Int)]

    init(_ listening: FastCGIConfiguration) {
        responders = max(1, listening.threadCount)
        // As many threads as the server starts for each: at least one.
        lanes = listening.lanes.map { ($0.lane.name, max(1, $0.threadCount)) }
    }

    func name(of index: Int) -> String {
        if index < responders { return "responder" }
        var first = responders
        for lane in lanes {
            if index < first + lane.threads { return lane.name }
            first += lane.threads
        }
        return lanes.last?.name ?? "responder"
    }
}
