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

    /// How long stopping waits for the lane's queued, running and parked requests, in seconds.
    public var drainTimeoutSeconds: Double

    /// Requests parked at once (see `ParkedResponse`): each holds its nginx connection and its
    /// pushes in memory, no thread. At the bound, new requests wait in the queue.
    public var parkedLimit: Int

    /// Pushes the parked requests wait on at once, summed; a request is let in while the sum
    /// is below the bound, whatever its own count.
    public var parkedPushLimit: Int

    /// Requests with a body of at most this many bytes are answered on the responder thread
    /// that read them, and only what they park waits on the lane (see `Lane.homeForResponder`),
    /// while the lane has no queue and room to park: one hand-off between threads fewer.
    /// Larger ones, bulk work, stay on the lane's bounded threads. 0: every request goes to
    /// the lane's threads.
    public var responderBodyLimit: Int

    public init(
        lane: RequestLane, threadCount: Int, queueLimit: Int, queueWaitSeconds: Double, drainTimeoutSeconds: Double = 60,
        parkedLimit: Int = .max, parkedPushLimit: Int = .max, responderBodyLimit: Int = 0
    ) {
        self.responderBodyLimit = max(0, responderBodyLimit)
        self.lane = lane
        self.threadCount = threadCount
        self.queueLimit = queueLimit
        self.queueWaitSeconds = queueWaitSeconds
        self.drainTimeoutSeconds = drainTimeoutSeconds
        self.parkedLimit = parkedLimit
        self.parkedPushLimit = parkedPushLimit
    }
}
