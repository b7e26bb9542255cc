import CFastCGI
import Glibc
import Logging
import PushCore

/// A request libfcgi has accepted: its `FCGX_Request` (the connection, the streams), the
/// `Request` its CGI params make, still without its body, and the length nginx declared for it.
struct AcceptedRequest: @unchecked Sendable {
    // @unchecked: the pointer passes from the thread that accepted the request to the one that
    // answers it, and is used by one thread at a time.
    let request: UnsafeMutablePointer<FCGX_Request>
    /// `CONTENT_LENGTH` as nginx sent it, before the body is read.
    let contentLength: String?
    var head: Request
    /// When it was accepted, for the log line's duration (which so includes any wait in a lane).
    let started: UInt64

    /// Its `FCGX_Request` alone, for a closure to free once the request is answered: one that
    /// held the whole request would copy its head too.
    var memory: RequestMemory { RequestMemory(request: request) }
}

/// An accepted request's `FCGX_Request`, freed once: `FCGX_Finish_r` has freed its streams and
/// params by then.
struct RequestMemory: @unchecked Sendable {
    // @unchecked: see `AcceptedRequest`.
    let request: UnsafeMutablePointer<FCGX_Request>

    func release() {
        request.deallocate()
    }
}

/// The steps of answering an accepted request: read its body, have it handled, write the answer
/// into libfcgi's buffer, finish (send), park the connection nginx keeps, log the line. The
/// responder threads and the lanes' threads all answer this way; what a request means is the
/// handler's business. Keeps one buffer for bodies, so it is used by one thread at a time.
final class RequestExchange: @unchecked Sendable {
    // @unchecked: one thread at a time (see above).
    private let limit: BodyLimit
    private let logger: Logger
    private let connections: ReadyConnections
    /// Reused for every body: bodies are read in chunks of this size.
    private let scratch: UnsafeMutablePointer<CChar>
    private let scratchSize = 65_536

    init(limit: BodyLimit, connections: ReadyConnections, logger: Logger) {
        self.limit = limit
        self.connections = connections
        self.logger = logger
        scratch = .allocate(capacity: scratchSize)
    }

    deinit {
        scratch.deallocate()
    }

    /// Reads the body, has `handler` answer the request, sends the answer, then calls `done`.
    /// A parked answer (see `ParkedResponse`) is sent when it comes, from `parking`'s thread;
    /// without `parking` it is waited for here. Sending uses no state of the exchange's, so
    /// `parking` may be another thread's (a lane's, for a request its responder checked).
    func answer(
        _ accepted: consuming AcceptedRequest, handler: any RequestHandler, parking: Bulkhead<Lane.Job>.Home? = nil,
        done: @escaping @Sendable () -> Void = {}
    ) {
        // `accepted` is this call's own: its head takes the body in place (a copy of the head
        // would retain and release its dozen references once more).
        let request = accepted.request
        let response: Response
        switch limit.verdict(contentLength: accepted.contentLength) {
        case .tooLarge(let declared):
            drainBody(request)
            response = handler.refuse(accepted.head, .bodyTooLarge(bytes: declared, limit: limit.maxBytes))
        case .read(let expected):
            switch readBody(request, expected: expected) {
            case .complete(let body):
                accepted.head.body = body
                response = handler.handle(accepted.head)
            case .tooLarge(let received):
                response = handler.refuse(accepted.head, .bodyTooLarge(bytes: received, limit: limit.maxBytes))
            case .failed:
                // nginx went away mid-body; the answer will most likely not arrive either.
                response = .text(400, "the request body could not be read")
            }
        }
        if let parked = response.parked {
            guard let parking else {
                send(OutsideWait.run { response.settled() }, accepted)
                return done()
            }
            parking.park(weight: parked.weight)
            // The log line needs the head; the body (up to the limit) is not kept while parked.
            accepted.head.body = []
            parked.start(home: parking) { [self, accepted] answer in
                send(answer.settled(), accepted)
                done()
                parking.unpark(weight: parked.weight)
            }
            return
        }
        send(response, accepted)
        done()
    }

    private func send(_ response: Response, _ accepted: borrowing AcceptedRequest) {
        write(response, accepted.request)
        finish(accepted, response)
    }

    /// Sends `response` without reading the body (it is read and dropped, see `readBody`).
    func answer(_ accepted: AcceptedRequest, with response: Response) {
        drainBody(accepted.request)
        write(response, accepted.request)
        finish(accepted, response)
    }

    private func finish(_ accepted: borrowing AcceptedRequest, _ response: Response) {
        let request = accepted.request
        // Finish here rather than at the next accept, so that nginx gets its answer (and,
        // unless it keeps it, its connection closed) before this thread waits again.
        FCGX_Finish_r(request)
        if request.pointee.ipcFd >= 0 {
            connections.park(request.pointee.ipcFd)
            request.pointee.ipcFd = -1
        }
        let nanoseconds = Monotonic.nanoseconds() - accepted.started
        // After the answer is sent: libfcgi holds it in its buffer until FCGX_Finish_r, and a
        // write to stderr can block (a log file blocks while ext4 commits its journal, which
        // under load happens several times a second).
        logger.log(
            level: RequestLogLine.level(status: response.status, note: response.logNote),
            "\(RequestLogLine.message(method: accepted.head.method, path: accepted.head.path, status: response.status, nanoseconds: nanoseconds, note: response.logNote))",
            metadata: ["request-id": .string(accepted.head.id)],
            // Named here: derived from #fileID, it would be worked out again for every request.
            source: "FastCGI")
    }

    private enum BodyOutcome {
        case complete([UInt8])
        case tooLarge(received: Int)
        case failed
    }

    /// Reads stdin to EOF. Past the limit it goes on reading without keeping, to count the
    /// bytes for the message and to close the connection empty: closing a Unix socket with
    /// unread data marks it reset (ECONNRESET) for nginx, which can cost it our 413.
    /// nginx's `client_max_body_size` bounds what arrives.
    private func readBody(_ request: UnsafeMutablePointer<FCGX_Request>, expected: Int?) -> BodyOutcome {
        var body: [UInt8] = []
        if let expected { body.reserveCapacity(expected) }
        var received = 0
        while true {
            let count = Int(FCGX_GetStr(scratch, Int32(scratchSize), request.pointee.in))
            if count > 0 {
                received += count
                if limit.admits(received) {
                    body.append(contentsOf: UnsafeRawBufferPointer(start: scratch, count: count))
                } else if !body.isEmpty {
                    body = []
                }
            }
            if count < scratchSize { break }  // FCGX_GetStr returns short only at EOF or error
        }
        if FCGX_GetError(request.pointee.in) != 0 { return .failed }
        return limit.admits(received) ? .complete(body) : .tooLarge(received: received)
    }

    /// Reads and drops the rest of stdin (see `readBody`).
    private func drainBody(_ request: UnsafeMutablePointer<FCGX_Request>) {
        while FCGX_GetStr(scratch, Int32(scratchSize), request.pointee.in) == Int32(scratchSize) {}
    }

    private func write(_ response: Response, _ request: UnsafeMutablePointer<FCGX_Request>) {
        let out = request.pointee.out
        CGIResponseEncoding.writeHead(response) { put(UnsafeRawBufferPointer($0), out) }
        response.body.withUnsafeBytes { put($0, out) }
    }

    private func put(_ bytes: UnsafeRawBufferPointer, _ stream: UnsafeMutablePointer<FCGX_Stream>?) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        // A failed write means nginx closed the connection; FCGX_Finish_r cleans up after it.
        _ = FCGX_PutStr(base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), stream)
    }
}
