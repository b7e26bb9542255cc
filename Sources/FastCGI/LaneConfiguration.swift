import PushCore

/// One lane's bounds (see `RequestLane`): its own threads, how many requests may wait for one,
/// and for how long, before they are answered with their handler's busy response.
public struct LaneConfiguration: Sendable, Equatable {
    public var lane: RequestLane

    /// Threads answering the lane's requests, each with its own handler (so its own database
    /// connection), apart from the responder threads.
    public var threadCount: Int

    /// Requests that may wait for a free thread of the lane; one more is answered busy at once.
    /// A waiting request holds its nginx connection, never a thread.
    public var queueLimit: Int

    /// The longest a request waits for a free thread before it is answered busy, in seconds.
    /// Keep it, plus the longest the lane's work takes, below nginx's `fastcgi_read_timeout`,
    /// or the caller gets nginx's 504 instead.
    public var queueWaitSeconds: Double

    /// How long stopping waits for the lane's queued and running requests, in seconds.
    public var drainTimeoutSeconds: Double

    public init(
        lane: RequestLane, threadCount: Int, queueLimit: Int, queueWaitSeconds: Double, drainTimeoutSeconds: Double = 60
    ) {
        self.lane = lane
        self.threadCount = threadCount
        self.queueLimit = queueLimit
        self.queueWaitSeconds = queueWaitSeconds
        self.drainTimeoutSeconds = drainTimeoutSeconds
    }
}
