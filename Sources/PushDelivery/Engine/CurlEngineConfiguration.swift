/// How the curl engine connects: time-outs, trust, and how far it multiplexes.
public struct CurlEngineConfiguration: Sendable {
    /// Seconds allowed to establish a connection (TCP + TLS).
    public var connectTimeoutSeconds: Double = 10
    /// Seconds allowed for a whole request, waiting for a connection included.
    public var requestTimeoutSeconds: Double = 30
    /// `PUSHGATE_CA_FILE`: a PEM bundle trusted *in addition to* the system's CAs.
    public var extraCAFile: String?
    /// The hashed directory of system CAs that stays trusted when `extraCAFile` is set (libcurl's
    /// own CAINFO would otherwise replace the system bundle). Nil: libcurl's built-in CA path
    /// (`/etc/ssl/certs` on Debian).
    public var systemCAPath: String?
    /// Streams libcurl opens on one HTTP/2 connection before it opens another (the server's own
    /// SETTINGS_MAX_CONCURRENT_STREAMS caps it further; APNs allows up to 1000).
    public var maxConcurrentStreams: Int = 1000
    /// Connections to one host at most (all credentials together); transfers beyond wait.
    public var maxHostConnections: Int = 16
    /// Idle connections kept open for reuse, over all hosts and credentials.
    public var maxCachedConnections: Int = 64
    /// Transfers handed to libcurl at once, per engine thread; the rest wait in the engine's
    /// queue, so that a 100,000-push fan-out does not make libcurl walk 100,000 handles on every
    /// pass (transfers libcurl holds back for want of a stream still cost it CPU on each pass).
    /// Above the server's stream limit, libcurl opens further connections.
    public var maxTransfersInFlight: Int = 1000
    /// Engine threads, each with its own multi handle and so its own connections. libcurl's
    /// own CPU per request caps one thread (docs/performance.md, the delivery rows); more
    /// threads spread that over cores (and open one connection per thread and upstream).
    public var threads: Int = 1
    /// On shutdown, seconds that transfers already in flight may still take.
    public var shutdownGraceSeconds: Double = 5

    public init(
        connectTimeoutSeconds: Double = 10, requestTimeoutSeconds: Double = 30, extraCAFile: String? = nil,
        systemCAPath: String? = nil
    ) {
        self.connectTimeoutSeconds = connectTimeoutSeconds
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.extraCAFile = extraCAFile
        self.systemCAPath = systemCAPath
    }
}
