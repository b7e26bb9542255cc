import Foundation

/// What the accept threads and the thread that stops them share: a stop flag, and a count of
/// threads still running that stopping can wait on for a bounded time.
final class WorkerGroup: @unchecked Sendable {
    // @unchecked: every field is read and written under `condition`.
    private let condition = NSCondition()
    private var stopping = false
    private var running = 0

    var isStopping: Bool { condition.withLock { stopping } }

    func requestStop() {
        condition.withLock { stopping = true }
    }

    func threadStarted() {
        condition.withLock { running += 1 }
    }

    func threadFinished() {
        condition.lock()
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every thread has finished; false if some still run after `seconds`.
    func waitForThreads(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while running > 0 {
            if !condition.wait(until: deadline) { return running == 0 }
        }
        return true
    }

    var runningThreads: Int { condition.withLock { running } }
}
