import Glibc

/// CLOCK_MONOTONIC, which no wall-clock change moves: request durations, how long ago a
/// request arrived (`Request.receivedAt`), and the windows of throttles, quotas and caches.
/// The FastCGI layer and the handlers read it on one clock.
public enum Monotonic {
    /// The same clock in seconds, as the throttles and caches take it (`now: () -> Double`).
    public static let seconds: @Sendable () -> Double = { Double(nanoseconds()) / 1_000_000_000 }

    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
