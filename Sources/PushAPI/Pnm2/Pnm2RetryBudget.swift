import PushCore

/// Whether pnm2's one in-request retry still fits before the front server gives up on the
/// request. nginx waits `fastcgi_read_timeout` (60 s) for the answer; a retry started late
/// would be answered by nginx's 504 instead of pnm2's own error, and would still go out.
public struct Pnm2RetryBudget: Sendable {
    /// From the request's arrival, the answer must be written within this.
    public var answerWithinSeconds: Double
    /// The longest one attempt at the upstream may take (the delivery engine's request
    /// time-out).
    public var attemptSeconds: Double
    /// `Monotonic.nanoseconds` unless a test moves the clock.
    public var now: @Sendable () -> UInt64

    /// nginx's 60 s less 5 s for the answer's way back; the engine's 30 s per attempt.
    public static let standard = Pnm2RetryBudget(answerWithinSeconds: 55, attemptSeconds: 30)

    public init(
        answerWithinSeconds: Double, attemptSeconds: Double,
        now: @escaping @Sendable () -> UInt64 = Monotonic.nanoseconds
    ) {
        self.answerWithinSeconds = answerWithinSeconds
        self.attemptSeconds = attemptSeconds
        self.now = now
    }

    /// True when a retry after `pauseSeconds`, taking its longest, is answered in time for a
    /// request that arrived at `receivedAt` (on the `Monotonic` clock).
    func allowsRetry(receivedAt: UInt64, pauseSeconds: Double) -> Bool {
        let elapsed = Double(now() &- receivedAt) / 1_000_000_000
        return elapsed + pauseSeconds + attemptSeconds <= answerWithinSeconds
    }
}
