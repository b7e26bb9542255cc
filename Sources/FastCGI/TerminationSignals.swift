import Glibc

/// SIGTERM, SIGINT and SIGHUP, taken synchronously with `sigwait` instead of by a handler.
///
/// A thread blocked in `FCGX_Accept_r` does not wake on a signal (libfcgi retries on EINTR),
/// so the signals are blocked in every thread and one thread waits for them. A mask is
/// inherited by the threads a thread starts, so the block must come before any thread starts.
enum TerminationSignals {
    static let numbers: [Int32] = [SIGTERM, SIGINT, SIGHUP]

    static var set: sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in numbers { sigaddset(&signals, number) }
        return signals
    }

    /// Blocks the signals in the calling thread and in the threads it starts from now on.
    static func blockInCallingThread() {
        var signals = set
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Waits for one of the signals, blocked beforehand, and returns it.
    static func wait() -> Int32 {
        var signals = set
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received
    }

    static func name(_ number: Int32) -> String {
        switch number {
        case SIGTERM: return "SIGTERM"
        case SIGINT: return "SIGINT"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(number)"
        }
    }
}
