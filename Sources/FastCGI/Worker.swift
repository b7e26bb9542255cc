import CFastCGI
import Glibc
import Logging
import PushCore

/// One responder thread: owns an `FCGX_Request` and a handler, and answers requests one at a
/// time, from whichever connection has one (see `ReadyConnections`), until the server stops.
/// Turns libfcgi's streams into a `Request` and a `Response` back into bytes; what the
/// request means is the handler's business.
final class Worker: @unchecked Sendable {
    // @unchecked: after `run()` starts, the fields are used only on the worker's own thread.
    private let index: Int
    private let handler: any RequestHandler
    private let limit: BodyLimit
    private let logger: Logger
    private let group: WorkerGroup
    private let connections: ReadyConnections
    private let request: UnsafeMutablePointer<FCGX_Request>
    /// Reused for every body: bodies are read in chunks of this size.
    private let scratch: UnsafeMutablePointer<CChar>
    private let scratchSize = 65_536
    private var served: UInt64 = 0

    init(
        index: Int, connections: ReadyConnections, handler: any RequestHandler, limit: BodyLimit, logger: Logger,
        group: WorkerGroup
    ) {
        self.index = index
        self.connections = connections
        self.handler = handler
        self.limit = limit
        self.logger = logger
        self.group = group
        request = .allocate(capacity: 1)
        // No listening socket for libfcgi: connections come from `connections` (see `serve`).
        FCGX_InitRequest(request, -1, 0)
        scratch = .allocate(capacity: scratchSize)
    }

    deinit {
        request.deallocate()
        scratch.deallocate()
    }

    func run() {
        while !group.isStopping {
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
        FCGX_Free(request, 1)
    }

    /// Reads one request from `connection`, answers it, and parks the connection again when
    /// nginx keeps it.
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
        let answered = serveAcceptedRequest()
        // Finish here rather than at the next accept, so that nginx gets its answer (and,
        // unless it keeps it, its connection closed) before this thread waits again.
        FCGX_Finish_r(request)
        if request.pointee.ipcFd >= 0 {
            connections.park(request.pointee.ipcFd)
            request.pointee.ipcFd = -1
        }
        let nanoseconds = Monotonic.nanoseconds() - started
        // After the answer is sent: libfcgi holds it in its buffer until FCGX_Finish_r, and a
        // write to stderr can block (a log file while ext4 commits its journal blocked for
        // 2-3 ms, several times a second, under the Token Reporter benchmark).
        logger.info(
            "\(RequestLogLine.message(method: answered.request.method, path: answered.request.path, status: answered.response.status, nanoseconds: nanoseconds, note: answered.response.logNote))",
            metadata: ["request-id": .string(answered.request.id)],
            // Named here: derived from #fileID, it would be worked out again for every request.
            source: "FastCGI")
    }

    /// Reads the accepted request, has it handled and writes the answer into libfcgi's buffer.
    private func serveAcceptedRequest() -> (request: Request, response: Response) {
        served &+= 1
        let params = CGIParams.read(request.pointee.envp)
        var incoming = CGIRequestMapping.request(
            params: params, body: [], fallbackID: "t\(index)-\(String(served, radix: 16))")

        let response: Response
        switch limit.verdict(contentLength: params["CONTENT_LENGTH"]) {
        case .tooLarge(let declared):
            drainBody()
            response = limit.tooLargeResponse(bytes: declared)
        case .read(let expected):
            switch readBody(expected: expected) {
            case .complete(let body):
                incoming.body = body
                response = handler.handle(incoming)
            case .tooLarge(let received):
                response = limit.tooLargeResponse(bytes: received)
            case .failed:
                // nginx went away mid-body; the answer will most likely not arrive either.
                response = .text(400, "the request body could not be read")
            }
        }
        write(response)
        return (incoming, response)
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
    private func readBody(expected: Int?) -> BodyOutcome {
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
    private func drainBody() {
        while FCGX_GetStr(scratch, Int32(scratchSize), request.pointee.in) == Int32(scratchSize) {}
    }

    private func write(_ response: Response) {
        let out = request.pointee.out
        let head = CGIResponseEncoding.head(response)
        head.withUnsafeBytes { put($0, out) }
        response.body.withUnsafeBytes { put($0, out) }
    }

    private func put(_ bytes: UnsafeRawBufferPointer, _ stream: UnsafeMutablePointer<FCGX_Stream>?) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        // A failed write means nginx closed the connection; FCGX_Finish_r cleans up after it.
        _ = FCGX_PutStr(base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), stream)
    }
}

/// CLOCK_MONOTONIC in nanoseconds, for request durations.
enum Monotonic {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
