/// When a push that met a passing fault (429, 5xx, time-out) is tried again: exponential
/// backoff with full jitter, so that a fan-out refused all at once does not come back all at
/// once (AWS Architecture Blog, "Exponential Backoff And Jitter"), floored by the upstream's
/// `Retry-After`; after `maxAttempts` the push is given up (dead-lettered).
public struct RetryPolicy: Sendable {
    /// The ceiling of the first retry's delay; each attempt doubles it.
    public var baseMilliseconds: Int64
    /// No backoff ceiling grows beyond this.
    public var capMilliseconds: Int64
    /// Deliveries started before a push is given up, the first included.
    public var maxAttempts: Int
    /// A `Retry-After` is honoured up to this (a day): beyond it the value is nonsense.
    public var maxRetryAfterMilliseconds: Int64
    /// Picks a delay in the range; tests pass a fixed one.
    public var random: @Sendable (ClosedRange<Int64>) -> Int64

    /// What to do after a failed attempt.
    public enum Decision: Sendable, Equatable {
        /// Try again at this time (unix ms).
        case retry(at: Int64)
        case giveUp
    }

    public init(
        baseMilliseconds: Int64 = 1_000, capMilliseconds: Int64 = 15 * 60_000, maxAttempts: Int = 10,
        maxRetryAfterMilliseconds: Int64 = 24 * 3_600_000,
        random: @escaping @Sendable (ClosedRange<Int64>) -> Int64 = { Int64.random(in: $0) }
    ) {
        self.baseMilliseconds = max(baseMilliseconds, 1)
        self.capMilliseconds = max(capMilliseconds, self.baseMilliseconds)
        self.maxAttempts = max(maxAttempts, 1)
        self.maxRetryAfterMilliseconds = max(maxRetryAfterMilliseconds, 0)
        self.random = random
    }

    /// After attempt number `attempts` (1 = the first) failed at `now` with a fault that may
    /// pass, and the upstream asked to wait `retryAfterSeconds` (nil: it did not say).
    public func decide(attempts: Int, retryAfterSeconds: Int?, now: Int64) -> Decision {
        guard attempts < maxAttempts else { return .giveUp }
        // Full jitter: anywhere between now and the ceiling, clamped in case `random` strays.
        let ceiling = backoffCeiling(afterAttempt: attempts)
        var delay = min(max(random(0...ceiling), 0), ceiling)
        if let retryAfterSeconds {
            // Compared in seconds first: seconds × 1000 of a garbage value would overflow.
            let seconds = Int64(max(retryAfterSeconds, 0))
            let floor = seconds > maxRetryAfterMilliseconds / 1000 ? maxRetryAfterMilliseconds : seconds * 1000
            delay = max(delay, floor)
        }
        return .retry(at: now + delay)
    }

    /// min(cap, base × 2^(attempt − 1)): the longest wait after attempt `attempt`.
    public func backoffCeiling(afterAttempt attempt: Int) -> Int64 {
        let shift = Int64(min(max(attempt - 1, 0), 62))
        // base << shift would overflow, or pass the cap anyway.
        if baseMilliseconds > capMilliseconds >> shift { return capMilliseconds }
        return min(capMilliseconds, baseMilliseconds << shift)
    }
}
