import Foundation

/// Queues the write transactions of every connection in this process on one mutex, before
/// they ask SQLite for its write lock. SQLite can only poll a taken lock (its busy handler
/// sleeps and retries), so with several FastCGI threads writing, a waiter wakes late or loses
/// the race again and again (measured: waits of seconds at 4 threads). A mutex hands the turn
/// over as soon as the holder commits. Share one gate between all stores on one file; other
/// processes (the CLI) still meet the busy timeout.
public final class WriteGate: @unchecked Sendable {
    // @unchecked: NSLock is thread-safe; it is the whole state.
    private let lock = NSLock()

    public init() {}

    func withTurn<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
