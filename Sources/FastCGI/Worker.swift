import CFastCGI
import Glibc
import Logging
import PushCore

/// One responder thread: owns an `FCGX_Request` and a handler, and answers requests one at a
/// time, from whichever connection has one (see `ReadyConnections`), until the server stops.
/// A request the handler routes to a lane (see `RequestHandler.route`) is handed over whole, its
/// `FCGX_Request` with it, and the thread takes a fresh one and goes back to serving: it never
/// waits on what the lane's requests wait on. A small one the lane has room for is checked
/// here instead, and only what it parks waits on the lane (see `Lane.homeForResponder`).
final class Worker: @unchecked Sendable {
    // @unchecked: after `run()` starts, the fields are used only on the worker's own thread.
    private let index: Int
    private let handler: any RequestHandler
    private let lanes: [RequestLane: Lane]
    private let logger: Logger
    private let group: WorkerGroup
    private let running: RunningLimit
    private let connections: ReadyConnections
    private let exchange: RequestExchange
    /// Replaced by a fresh one whenever a request goes to a lane with the old one.
    private var request: UnsafeMutablePointer<FCGX_Request>
    private var served: UInt64 = 0

    init(
        index: Int, connections: ReadyConnections, handler: any RequestHandler, lanes: [RequestLane: Lane],
        limit: BodyLimit, logger: Logger, group: WorkerGroup, running: RunningLimit
    ) {
        self.running = running
        self.index = index
        self.connections = connections
        self.handler = handler
        self.lanes = lanes
        self.logger = logger
        self.group = group
        exchange = RequestExchange(limit: limit, connections: connections, logger: logger)
        request = Self.freshRequest()
    }

    deinit {
        request.deallocate()
    }

    /// An `FCGX_Request` with no listening socket for libfcgi: connections come from
    /// `connections` (see `serve`).
    static func freshRequest() -> UnsafeMutablePointer<FCGX_Request> {
        let request = UnsafeMutablePointer<FCGX_Request>.allocate(capacity: 1)
        FCGX_InitRequest(request, -1, 0)
        return request
    }

    func run() {
        // Only threads with a turn wait on the connections (see `RunningLimit`).
        running.join()
        while !group.isStopping {
            running.yieldIfOver()
            // A short wait, to see the stop flag soon after stopping.
            switch connections.next(timeoutMilliseconds: 200) {
            case .connection(let connection):
                serve(connection)
            case .nothing:
                continue
            case .acceptFailed(let code):
                // Stopping shuts the listening socket down, which fails the accept: expected.
                if group.isStopping { break }
                logger.error("FastCGI accept failed: \(String(cString: strerror(code)))")
            }
        }
        running.leave()
        FCGX_Free(request, 1)
    }

    /// Reads one request from `connection`, and answers it or hands it to its lane.
    private func serve(_ connection: Int32) {
        request.pointee.ipcFd = connection
        // FCGX_Accept_r first finishes "the current request" and closes its connection unless
        // that one was kept: the flag left by an earlier, closed connection would close this one.
        request.pointee.keepConnection = 1
        // With a connection set, FCGX_Accept_r reads its request instead of accepting. It fails
        // when nginx closed the connection instead of sending one (libfcgi has closed it; its
        // listening socket is -1, so it cannot block in an accept of its own).
        guard FCGX_Accept_r(request) >= 0 else {
            request.pointee.ipcFd = -1
            return
        }
        let started = Monotonic.nanoseconds()
        served &+= 1
        let params = CGIParams.read(request.pointee.envp)
        // Made in place and never copied: a `Request` is a dozen references, and each copy
        // retains and later releases them all (a head mapped, routed, then moved in here was
        // still copied once).
        var accepted = AcceptedRequest(
            request: request, contentLength: params.contentLength,
            head: CGIRequestMapping.request(
                params: params, body: [], fallbackID: "t\(index)-\(String(served, radix: 16))"),
            started: started)
        accepted.head.receivedAt = started
        // The one route lookup of this request: everything after reads `head.route`.
        let laneName = handler.route(&accepted.head)
        if let laneName, let lane = lanes[laneName] {
            // The request is answered from elsewhere from here (or later than this thread's
            // next request), and freed once answered: this thread takes a fresh one.
            request = Self.freshRequest()
            if let home = lane.homeForResponder(accepted) {
                // Checked here, parked on the lane while its pushes are out (see LaneConfiguration).
                let memory = accepted.memory
                exchange.answer(accepted, handler: handler, parking: home) { memory.release() }
                lane.responderFinished()
                return
            }
            lane.submit(accepted, busy: { [handler, head = accepted.head] in handler.refuse(head, .busy) })
            return
        }
        exchange.answer(accepted, handler: handler)
    }
}
