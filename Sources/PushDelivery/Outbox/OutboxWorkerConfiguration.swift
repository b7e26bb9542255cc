import PushCore

/// How the outbox worker paces itself. App fills it from configuration; the defaults suit
/// one `pushgate serve` per database.
public struct OutboxWorkerConfiguration: Sendable {
    /// Rows claimed, delivered and completed together (one `Deliverer.deliver` call, two
    /// transactions). Larger batches amortise the store's transactions; smaller ones hold the
    /// write lock for less time and give back rows sooner after a crash.
    public var batchSize: Int
    /// How long a claim holds its rows (ms). Another process's worker takes them over only
    /// after it; it must be longer than a batch can take to deliver (upstream time-outs).
    public var leaseMilliseconds: Int64
    /// The longest sleep when nothing is due (ms): rows enqueued by another process (the
    /// CLI), which cannot `notify()`, wait at most this long.
    public var idlePollMilliseconds: Int64
    /// How long to wait before trying again after the store failed (ms).
    public var errorPauseMilliseconds: Int64
    /// Entries `delivery_log` keeps.
    public var deliveryLogLimit: Int
    /// How often the log is trimmed and orphaned payloads deleted (ms), busy or not.
    public var housekeepingIntervalMilliseconds: Int64
    /// Which claims a starting worker takes back at once instead of waiting for their leases.
    public var releaseClaimsOnStart: ClaimRelease
    /// The id this worker's claims are recorded under (`PUSHGATE_NODE_ID`): unique among the
    /// nodes delivering from one database, and the same across restarts of one node.
    public var nodeID: String
    public var retry: RetryPolicy

    /// Claims a starting worker takes back: those a predecessor died holding.
    public enum ClaimRelease: Sendable, Equatable {
        /// None: every claim comes back when its lease runs out.
        case none
        /// Those recorded under this worker's `nodeID`: its own predecessor's, never a live
        /// node's. Right when several nodes deliver from one database, each under its own id.
        case thisNode
        /// Every claim: right only when this is the only process delivering from the database
        /// (one `pushgate serve` on SQLite); with several, a live worker's rows would be sent twice.
        case everyNode
    }

    public init(
        batchSize: Int = 1_000, leaseMilliseconds: Int64 = 60_000, idlePollMilliseconds: Int64 = 5_000,
        errorPauseMilliseconds: Int64 = 1_000, deliveryLogLimit: Int = 10_000,
        housekeepingIntervalMilliseconds: Int64 = 60_000, releaseClaimsOnStart: ClaimRelease = .everyNode,
        nodeID: String = "local", retry: RetryPolicy = RetryPolicy()
    ) {
        self.batchSize = max(batchSize, 1)
        self.leaseMilliseconds = max(leaseMilliseconds, 1)
        self.idlePollMilliseconds = max(idlePollMilliseconds, 1)
        self.errorPauseMilliseconds = max(errorPauseMilliseconds, 1)
        self.deliveryLogLimit = max(deliveryLogLimit, 0)
        self.housekeepingIntervalMilliseconds = max(housekeepingIntervalMilliseconds, 1)
        self.releaseClaimsOnStart = releaseClaimsOnStart
        self.nodeID = nodeID
        self.retry = retry
    }
}
