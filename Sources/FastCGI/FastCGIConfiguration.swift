import PushCore

/// How the FastCGI edge listens and what it accepts: everything `FastCGIServer` needs, with defaults.
public struct FastCGIConfiguration: Sendable, Equatable {
    /// The Unix socket nginx connects to (`fastcgi_pass unix:PATH`). Its parent directory is
    /// created when missing. libfcgi reads `HOST:PORT` as TCP, so the path must contain no `:`.
    public var socketPath: String

    /// When set, the responder listens on this TCP address instead of `socketPath` (which is
    /// then neither created nor removed).
    public var tcpAddress: TCPListenAddress?

    /// When set, the responder serves on this socket systemd passed (see `ActivatedSocket`):
    /// `socketPath`, `tcpAddress`, `socketMode`, `socketGroup` and `listenBacklog` are then the
    /// socket unit's business, and no socket file is made, changed or removed.
    public var activatedSocket: ActivatedSocket?

    /// Over TCP, the hosts whose connections are served; any other's is closed unread.
    public var tcpClients: FastCGIClients

    /// The socket file's mode. 0o660: whoever can connect speaks FastCGI and writes the
    /// CGI params (REMOTE_ADDR among them) itself, so only the owner and the socket's group
    /// may; nginx's workers, running as another user, reach it through `socketGroup`.
    public var socketMode: UInt32

    /// The group id the socket file is given; nil keeps the process's own group.
    public var socketGroup: UInt32?

    /// Threads accepting and answering requests, each with its own `FCGX_Request` and its own
    /// handler. A request holds its thread until it is answered.
    public var threadCount: Int

    /// Of those, how many run at once (see `RunningLimit`): the others wait for a turn, which a
    /// thread gives up while it waits on something outside the process (`OutsideWait`). nil:
    /// all of them.
    public var runningThreadLimit: Int?

    /// The largest request body handed to a handler, in bytes; larger ones are answered 413.
    /// Keep it below nginx's `client_max_body_size` so the client gets pushgate's message.
    public var maxBodyBytes: Int

    /// The `listen(2)` backlog: connections the kernel queues while every thread is busy.
    /// A full backlog makes nginx answer 502 at once, so it is generous.
    public var listenBacklog: Int32

    /// How long stopping waits for requests in flight before it gives up on them, in seconds.
    public var drainTimeoutSeconds: Double

    /// Lanes of their own for the requests the handler routes to them (see
    /// `RequestLane`); none: every request is answered on the responder threads.
    public var lanes: [LaneConfiguration]

    public init(
        socketPath: String,
        socketMode: UInt32 = 0o660,
        socketGroup: UInt32? = nil,
        threadCount: Int = 8,
        maxBodyBytes: Int = 1_048_576,
        listenBacklog: Int32 = 1024,
        drainTimeoutSeconds: Double = 5,
        lanes: [LaneConfiguration] = [],
        tcpAddress: TCPListenAddress? = nil,
        tcpClients: FastCGIClients = .loopback,
        runningThreadLimit: Int? = nil,
        activatedSocket: ActivatedSocket? = nil
    ) {
        self.activatedSocket = activatedSocket
        self.tcpClients = tcpClients
        self.runningThreadLimit = runningThreadLimit
        self.socketPath = socketPath
        self.tcpAddress = tcpAddress
        self.socketMode = socketMode
        self.socketGroup = socketGroup
        self.threadCount = threadCount
        self.maxBodyBytes = maxBodyBytes
        self.listenBacklog = listenBacklog
        self.drainTimeoutSeconds = drainTimeoutSeconds
        self.lanes = lanes
    }

    /// Where the responder listens, for logs: the socket's path or the TCP address.
    public var listenDescription: String {
        activatedSocket?.description ?? tcpAddress.map { "tcp \($0)" } ?? socketPath
    }

    /// Whether connections come over TCP, whose peers `tcpClients` must list.
    public var listensOnTCP: Bool { activatedSocket.map(\.isTCP) ?? (tcpAddress != nil) }
}
