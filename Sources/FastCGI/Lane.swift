import CFastCGI
import Logging
import PushCore

/// One lane at work: the accepted requests the responder threads hand it, answered on the lane's
/// own threads (each with its own handler) through a `Bulkhead`, or with the busy response
/// their handler gave when the bulkhead has no room for them. A request whose handler parks it
/// (see `ParkedResponse`) gives its thread back; its answer is written from that same thread
/// when the parked work resumes there.
final class Lane: Sendable {
    let configuration: LaneConfiguration
    private let bulkhead: Bulkhead<Job>
    private let logger: Logger

    /// A handed-over request and the answer it gets if it is refused, made only then: nearly
    /// every request runs, and making the dialect's error for each would be work thrown away.
    struct Job: Sendable {
        let accepted: AcceptedRequest
        let busy: @Sendable () -> Response
    }

    /// - Parameter handlers: one per lane thread.
    init(
        configuration: LaneConfiguration, handlers: [any RequestHandler], limit: BodyLimit,
        connections: ReadyConnections, logger: Logger
    ) {
        self.configuration = configuration
        self.logger = logger
        let exchanges = handlers.map { _ in RequestExchange(limit: limit, connections: connections, logger: logger) }
        bulkhead = Bulkhead(
            name: configuration.lane.name,
            limits: .init(
                threads: handlers.count, queueLimit: configuration.queueLimit,
                queueWaitSeconds: configuration.queueWaitSeconds, parkedLimit: configuration.parkedLimit,
                parkedWeightLimit: configuration.parkedPushLimit),
            logger: logger,
            run: { job, home in
                let memory = job.accepted.memory
                exchanges[home.thread].answer(job.accepted, handler: handlers[home.thread], parking: home) {
                    memory.release()
                }
            },
            refuse: { job, refusal in
                var busy = job.busy()
                busy.logNote = "the \(configuration.lane.name) lane had no room: \(refusal)"
                // Refusals are rare and come from several threads: a buffer of their own.
                RequestExchange(limit: limit, connections: connections, logger: logger).answer(job.accepted, with: busy)
                job.accepted.memory.release()
            })
    }

    func start() {
        bulkhead.start()
    }

    /// Takes over `accepted`: it is answered on a lane thread, or with what `busy` makes.
    func submit(_ accepted: AcceptedRequest, busy: @escaping @Sendable () -> Response) {
        let id = accepted.head.id
        if case .waits(let ahead) = bulkhead.submit(Job(accepted: accepted, busy: busy)) {
            logger.debug(
                "waits for a thread of the \(configuration.lane.name) lane behind \(ahead) others",
                metadata: ["request-id": .string(id)])
        }
    }

    /// The lane's home for `accepted` when the responder thread that read it may answer it
    /// itself, parking on the lane what waits on the upstream (see `Bulkhead.homeForCaller`):
    /// a body of at most `responderBodyLimit` bytes, declared, while the lane has room. Call
    /// `responderFinished` once it is answered or parked. Nil: `submit` it.
    func homeForResponder(_ accepted: AcceptedRequest) -> Bulkhead<Job>.Home? {
        guard configuration.responderBodyLimit > 0,
            let declared = accepted.contentLength.flatMap({ Int($0) }),
            declared >= 0, declared <= configuration.responderBodyLimit
        else { return nil }
        return bulkhead.homeForCaller()
    }

    /// The request `homeForResponder` gave a home is answered or parked.
    func responderFinished() {
        bulkhead.callerFinished()
    }

    /// Answers what is queued and running, then ends the lane's threads (see `Bulkhead.stop`).
    func stop() -> Bool {
        bulkhead.stop(timeoutSeconds: configuration.drainTimeoutSeconds)
    }

    var load: (running: Int, queued: Int, parked: Int) { bulkhead.load }
}
