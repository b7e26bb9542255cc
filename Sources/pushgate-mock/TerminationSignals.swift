#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGTERM/SIGINT handling by `sigwait`: blocked in the main thread before the server's threads
/// start (they inherit the mask), then awaited synchronously, so no handler runs on a random
/// thread and the counters are printed from the main thread.
enum TerminationSignals {
    private static func set() -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGINT)
        return signals
    }

    static func block() {
        var signals = set()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Returns the signal that arrived.
    static func wait() -> Int32 {
        var signals = set()
        var received: Int32 = 0
        sigwait(&signals, &received)
        return received
    }
}
