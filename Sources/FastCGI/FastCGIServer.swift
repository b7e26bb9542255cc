import Foundation
import Logging
import PushCore

/// The FastCGI responder nginx talks to: a Unix socket and N threads that each take a request
/// from whichever connection has one, hand it to their own handler and write the answer back.
///
/// `run` serves until SIGTERM, SIGINT or SIGHUP; `start` and `stop` do the same for callers
/// that own the process's signals themselves, such as tests.
public final class FastCGIServer: @unchecked Sendable {
    // @unchecked: the mutable state below is guarded by `lock`; `stopLock` serialises stopping.
    public let configuration: FastCGIConfiguration
    private let group = WorkerGroup()
    /// The responder threads' turns to run (see `FastCGIConfiguration.runningThreadLimit`).
    private var running: RunningLimit?
    private let lock = NSLock()
    private let stopLock = NSLock()
    private var listener: ListeningSocket?
    private var connections: ReadyConnections?
    private var lanes: [Lane] = []
    private var started = false
    private var stopped = false
    private var logger: Logger?
    /// The thread in `run` waiting for a signal, so that `stop` can wake it.
    private var waiter: pthread_t?
    private var stopWasRequested = false

    /// Configures the server; nothing is opened until `start` or `run`.
    public init(configuration: FastCGIConfiguration) {
        self.configuration = configuration
    }

    deinit {
        stop()
    }

    /// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread and the threads it starts later.
    /// `run` does this itself; call it first thing in `main` when other threads (delivery,
    /// outbox) start before `run`, or a signal could land on one of them and end the process
    /// without removing the socket.
    public static func blockTerminationSignals() {
        TerminationSignals.blockInCallingThread()
    }

    /// Serves until SIGTERM, SIGINT or SIGHUP (or `stop()` from another thread), then stops:
    /// no new requests, requests in flight get up to `drainTimeoutSeconds`, the socket file goes.
    /// Throws what `start` throws.
    public func run(makeHandler: (Int) throws -> any RequestHandler, logger: Logger) throws {
        TerminationSignals.blockInCallingThread()
        lock.lock()
        let alreadyStopping = stopped || stopWasRequested
        if !alreadyStopping { waiter = pthread_self() }
        lock.unlock()
        if alreadyStopping { return }

        do {
            try start(makeHandler: makeHandler, logger: logger)
        } catch {
            lock.withLock { waiter = nil }
            throw error
        }
        let signal = TerminationSignals.wait()

        lock.lock()
        waiter = nil
        let fromStop = stopWasRequested
        lock.unlock()
        if !fromStop {
            logger.notice("received \(TerminationSignals.name(signal)): stopping")
        }
        stop()
    }

    /// Opens the socket and starts the accept threads and the lanes' threads, then returns.
    /// - Parameter makeHandler: called once per thread index (the responder threads' first, then
    ///   each lane's in turn), here on the calling thread and before any request is served, so
    ///   each thread has its own handler (the handlers share the process's one store).
    /// - Throws: `FastCGIError.alreadyServing` if another responder accepts on the socket path,
    ///   `.notASocket` if another kind of file is in the way, `.invalidSocketPath`, `.system`;
    ///   `.handlerCreationFailed` if `makeHandler` throws (the socket is then closed again).
    public func start(makeHandler: (Int) throws -> any RequestHandler, logger: Logger) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !started, !stopped else { throw FastCGIError.alreadyStarted }

        let listener = try ListeningSocket.open(configuration)
        let count = max(1, configuration.threadCount)
        let laneCounts = configuration.lanes.map { max(1, $0.threadCount) }
        var handlers: [any RequestHandler] = []
        for index in 0..<(count + laneCounts.reduce(0, +)) {
            do {
                handlers.append(try makeHandler(index))
            } catch {
                listener.removeFile()
                listener.close()
                throw FastCGIError.handlerCreationFailed(thread: index, reason: "\(error)")
            }
        }
        let connections: ReadyConnections
        do {
            connections = try ReadyConnections(
                listener: listener.descriptor,
                clients: configuration.listensOnTCP
                    ? (configuration.tcpClients, RefusedConnectionLog(logger: logger)) : nil)
        } catch {
            listener.removeFile()
            listener.close()
            throw error
        }
        self.listener = listener
        self.connections = connections
        self.logger = logger
        started = true
        let limit = BodyLimit(maxBytes: configuration.maxBodyBytes)
        var laneHandlers = handlers[count...]
        var lanesByName: [RequestLane: Lane] = [:]
        for (lane, threads) in zip(configuration.lanes, laneCounts) {
            let started = Lane(
                configuration: lane, handlers: Array(laneHandlers.prefix(threads)), limit: limit,
                connections: connections, logger: logger)
            laneHandlers = laneHandlers.dropFirst(threads)
            started.start()
            lanes.append(started)
            lanesByName[lane.lane] = started
            logger.info(
                "FastCGI lane \(lane.lane): \(threads) threads, up to \(lane.queueLimit) requests waiting up to \(lane.queueWaitSeconds) s\(Self.parkingDescription(lane))")
        }
        let running = RunningLimit(limit: min(count, configuration.runningThreadLimit ?? count))
        self.running = running
        for (index, handler) in handlers.prefix(count).enumerated() {
            let worker = Worker(
                index: index, connections: connections, handler: handler, lanes: lanesByName, limit: limit,
                logger: logger, group: group, running: running)
            group.threadStarted()
            let thread = Thread { [group] in
                worker.run()
                group.threadFinished()
            }
            thread.name = "fastcgi-\(index)"
            thread.start()
        }
        logger.info(
            "FastCGI listening on \(configuration.listenDescription): \(count) threads, \(running.limit) running at once, bodies up to \(configuration.maxBodyBytes) bytes")
    }

    /// Stops serving: no new requests, requests in flight get up to `drainTimeoutSeconds`, the
    /// socket file is removed (if it is still ours; never one systemd passed, which keeps
    /// listening for the next serve). Wakes a thread waiting in `run`. Safe to
    /// call more than once, before `start`, and from any thread.
    public func stop() {
        lock.lock()
        stopWasRequested = true
        let runThread = waiter
        lock.unlock()
        if let runThread, pthread_equal(runThread, pthread_self()) == 0 {
            // The thread in `run` has SIGTERM blocked and waits for it: this wakes that thread
            // alone, not the process.
            pthread_kill(runThread, SIGTERM)
        }

        stopLock.lock()
        defer { stopLock.unlock() }
        lock.lock()
        let wasStopped = stopped
        stopped = true
        let listener = self.listener
        let connections = self.connections
        let logger = self.logger
        let lanes = self.lanes
        let running = self.running
        lock.unlock()
        guard !wasStopped, let listener, let connections else { return }

        // libfcgi's own FCGX_ShutdownPending is not used: its flag is process-wide and can
        // never be cleared, so no server in this process could accept again.
        group.requestStop()
        running?.stop()
        listener.removeFile()
        listener.shutDown()
        connections.closeIdle()
        let respondersEnded = group.waitForThreads(seconds: configuration.drainTimeoutSeconds)
        // After the responder threads, which hand requests to the lanes: what the lanes hold
        // (running or queued) is answered before the process goes on to stop delivery.
        var lanesEnded = true
        for lane in lanes {
            let load = lane.load
            if load.running + load.queued + load.parked > 0 {
                logger?.info(
                    "FastCGI lane \(lane.configuration.lane): finishing \(load.running) running, \(load.parked) parked and \(load.queued) waiting requests")
            }
            if !lane.stop() {
                lanesEnded = false
                logger?.warning(
                    "FastCGI lane \(lane.configuration.lane) still busy after \(lane.configuration.drainTimeoutSeconds) s")
            }
        }
        if respondersEnded && lanesEnded {
            connections.close()
            listener.close()
            logger?.info("FastCGI server stopped")
        } else if !respondersEnded {
            // Closing the descriptor under a thread still using it could hand its number to an
            // unrelated file; the process is on its way out anyway. An idle thread sees the stop
            // within 200 ms, so the threads counted here are (almost always) inside a request.
            logger?.warning(
                "FastCGI server stopped with \(group.runningThreads) responder threads still busy after \(configuration.drainTimeoutSeconds) s")
        }
    }

    /// The lane's bounds on parked requests, for its start-up line; empty when it has none.
    private static func parkingDescription(_ lane: LaneConfiguration) -> String {
        guard lane.parkedLimit < .max || lane.parkedPushLimit < .max else { return "" }
        return ", up to \(lane.parkedLimit) parked with up to \(lane.parkedPushLimit) pushes out"
    }
}
