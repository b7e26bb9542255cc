import Foundation
import PushCore
import XCTest

/// The responder threads' turns: no more than the limit run at once, a thread waiting outside
/// the process gives its turn away, and stopping lets every waiting thread go. Each test
/// waits on the threads' own signals, never on time; a limit that failed to hand a turn on
/// shows as a wait that does not end.
final class RunningLimitTests: XCTestCase {
    /// Long enough for any busy box: the threads wait only on each other.
    private let patience: TimeInterval = 30

    private func thread(_ body: @escaping @Sendable () -> Void) -> XCTestExpectation {
        let done = expectation(description: "thread finished")
        Thread {
            body()
            done.fulfill()
        }.start()
        return done
    }

    func testNoMoreThanTheLimitRunAtOnce() {
        let limit = RunningLimit(limit: 2)
        let counts = Counts()
        let threads = (0..<6).map { _ in
            thread {
                limit.join()
                for _ in 0..<200 {
                    counts.enter()
                    usleep(100)
                    counts.exit()
                    limit.yieldIfOver()
                }
                limit.leave()
            }
        }
        wait(for: threads, timeout: patience)
        XCTAssertLessThanOrEqual(counts.most, 2)
        XCTAssertEqual(limit.runningNow, 0)
    }

    /// With a limit of one, the second thread can only run (and end the first one's outside
    /// wait) if that wait gave its turn away.
    func testAnOutsideWaitGivesTheTurnToAWaitingThread() {
        let limit = RunningLimit(limit: 1)
        let firstIsWaiting = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let order = Counts()
        let first = thread {
            limit.join()
            OutsideWait.run {
                firstIsWaiting.signal()
                release.wait()
            }
            // Back past the limit while the second runs: it waits here for a turn.
            limit.yieldIfOver()
            order.enter()
            limit.leave()
        }
        firstIsWaiting.wait()
        let second = thread {
            limit.join()
            release.signal()
            // The first may not run on until this one is done with its turn.
            usleep(1_000)
            XCTAssertEqual(order.most, 0)
            limit.leave()
        }
        wait(for: [first, second], timeout: patience)
        XCTAssertEqual(order.most, 1)
        XCTAssertEqual(limit.runningNow, 0)
    }

    /// A wait inside a wait (a commit inside a parked answer waited for in place) gives the
    /// turn away once, and takes it back once.
    func testANestedOutsideWaitGivesTheTurnAwayOnce() {
        let limit = RunningLimit(limit: 1)
        limit.join()
        OutsideWait.run {
            XCTAssertEqual(limit.runningNow, 0)
            OutsideWait.run { XCTAssertEqual(limit.runningNow, 0) }
            XCTAssertEqual(limit.runningNow, 0)
        }
        XCTAssertEqual(limit.runningNow, 1)
        limit.leave()
        XCTAssertEqual(limit.runningNow, 0)
        XCTAssertEqual(OutsideWait.run { 7 }, 7, "after leave, no limit is the thread's")
    }

    func testOutsideAnyLimitAnOutsideWaitOnlyRuns() {
        XCTAssertEqual(OutsideWait.run { 42 }, 42)
    }

    func testStoppingLetsWaitingThreadsGo() {
        let limit = RunningLimit(limit: 1)
        limit.join()
        let waiting = (0..<3).map { _ in
            thread {
                limit.join()
                limit.leave()
            }
        }
        limit.stop()
        wait(for: waiting, timeout: patience)
        limit.leave()
        XCTAssertEqual(limit.runningNow, 0)
    }
}

/// How many threads are inside a section at once, and the most there ever were.
private final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    private var inside = 0
    private var mostSeen = 0
    var most: Int { lock.withLock { mostSeen } }

    func enter() {
        lock.withLock {
            inside += 1
            mostSeen = max(mostSeen, inside)
        }
    }

    func exit() {
        lock.withLock { inside -= 1 }
    }
}
