import Glibc

/// CLOCK_MONOTONIC in nanoseconds: request durations, and how long ago a request arrived
/// (`Request.receivedAt`), which the FastCGI layer and the handlers must read on one clock.
public enum Monotonic {
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
