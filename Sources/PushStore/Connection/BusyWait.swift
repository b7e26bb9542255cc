import CSQLite

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a connection waits for another connection's write lock: the busy timeout, spent in
/// short waits. SQLite's own `sqlite3_busy_timeout` sleeps 1, 2, 5, 10 … up to 100 ms between
/// tries; with several FastCGI threads writing at thousands of transactions a second, a
/// writer keeps waking after the lock was taken again and starves (measured: seconds-long
/// waits at 4 threads). A lock held for ~100 µs wants to be retried within microseconds.
final class BusyWait {
    private let timeoutNanoseconds: UInt64
    /// When the current wait began (the handler's `count` restarts at 0 for each wait).
    private var startedAt: UInt64 = 0

    init(timeoutMilliseconds: Int) {
        timeoutNanoseconds = UInt64(max(timeoutMilliseconds, 0)) * 1_000_000
    }

    /// Installs `self` as the busy handler of `connection`. The caller keeps `self` alive as
    /// long as the connection (SQLite holds only an unretained pointer).
    func install(on connection: OpaquePointer) {
        sqlite3_busy_handler(
            connection,
            { context, count in
                guard let context else { return 0 }
                return Unmanaged<BusyWait>.fromOpaque(context).takeUnretainedValue().shouldRetry(after: count) ? 1 : 0
            },
            Unmanaged.passUnretained(self).toOpaque())
    }

    /// Called by SQLite each time the lock was found taken; false gives up with SQLITE_BUSY.
    private func shouldRetry(after count: Int32) -> Bool {
        let now = Self.monotonicNanoseconds()
        if count == 0 { startedAt = now }
        guard now - startedAt < timeoutNanoseconds else { return false }
        if count < 4 {
            // The holder is probably running on the other core and about to commit.
            sched_yield()
        } else {
            // 20 µs doubling to at most 1 ms: short enough to catch the next free moment,
            // long enough not to steal the CPU the holder needs to finish.
            usleep(UInt32(20 << min(count - 4, 5)))
        }
        return true
    }

    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
