import Foundation
import Glibc
import Synchronization

/// At most `limit` of a pool's threads running at once; the others wait for a turn without
/// polling for work. A thread that is about to wait on something outside the process (a
/// commit's `fsync`, see `OutsideWait`) gives its turn to a waiting thread meanwhile, so the
/// pool still has `limit` threads at work while many wait on the disk.
///
/// Why: the FastCGI responder threads all wait on one epoll set. With more of them waiting
/// than there are cores, every request that arrives wakes a sleeping thread (a context switch
/// in and, after the answer, one out), though a thread just done with a request would have
/// found it ready without sleeping (docs/performance.md, "fourth pass", measures it).
public final class RunningLimit: @unchecked Sendable {
    // @unchecked: `running` is atomic and only changed under `condition`; `stopping` is read
    // and written under `condition`.
    public let limit: Int
    private let condition = NSCondition()
    /// Threads counted as running: at most `limit`, except briefly after `rejoin`.
    private let running = Atomic<Int>(0)
    private var stopping = false

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The calling thread waits for a turn, then counts as running and is the limit's own
    /// (see `current`). Returns at once, counted, once `stop` was called.
    public func join() {
        Self.setCurrent(self)
        condition.lock()
        while running.load(ordering: .relaxed) >= limit && !stopping { condition.wait() }
        running.add(1, ordering: .relaxed)
        condition.unlock()
    }

    /// The calling thread ends: it no longer counts, and a waiting thread may run.
    public func leave() {
        release()
        Self.setCurrent(nil)
    }

    /// Between two pieces of work: a thread past the limit (back from an outside wait while
    /// the others ran) waits for a turn here. One atomic read when there is nothing to do.
    public func yieldIfOver() {
        guard running.load(ordering: .relaxed) > limit else { return }
        condition.lock()
        if running.load(ordering: .relaxed) > limit {
            running.subtract(1, ordering: .relaxed)
            while running.load(ordering: .relaxed) >= limit && !stopping { condition.wait() }
            running.add(1, ordering: .relaxed)
        }
        condition.unlock()
    }

    /// Lets every waiting thread go (to see that its pool is stopping).
    public func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// Threads counted as running now (tests, logs).
    public var runningNow: Int { running.load(ordering: .relaxed) }

    /// Before an outside wait: the turn goes to a waiting thread.
    fileprivate func release() {
        condition.lock()
        running.subtract(1, ordering: .relaxed)
        condition.signal()
        condition.unlock()
    }

    /// After it: the thread runs on at once, past the limit if need be (it is in the middle of
    /// a request), and waits for a turn at its next `yieldIfOver`.
    fileprivate func rejoin() {
        condition.lock()
        running.add(1, ordering: .relaxed)
        condition.unlock()
    }

    /// The limit the calling thread joined, if any.
    fileprivate static var current: RunningLimit? {
        pthread_getspecific(currentKey).map { Unmanaged<RunningLimit>.fromOpaque($0).takeUnretainedValue() }
    }

    fileprivate static func setCurrent(_ limit: RunningLimit?) {
        // Unretained: a thread joins a limit its pool keeps for longer than the thread runs.
        pthread_setspecific(currentKey, limit.map { UnsafeRawPointer(Unmanaged.passUnretained($0).toOpaque()) })
    }

    private static let currentKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
        return key
    }()
}

/// A wait on something outside the process: the calling thread's turn (if it joined a
/// `RunningLimit`) goes to another thread until the wait is over. Marks the waits a FastCGI
/// responder thread may make in the middle of a request; on any other thread, and inside
/// another outside wait (the turn is given away once), it only runs `body`.
public enum OutsideWait {
    public static func run<T>(_ body: () throws -> T) rethrows -> T {
        guard let limit = RunningLimit.current else { return try body() }
        limit.release()
        RunningLimit.setCurrent(nil)
        defer {
            RunningLimit.setCurrent(limit)
            limit.rejoin()
        }
        return try body()
    }
}
