import PushTesting
import Foundation
import Glibc
import Logging
import XCTest

@testable import FastCGI

/// The bulkhead alone, with jobs that block until the test opens a gate: its bound on threads,
/// its bounded queue and wait, its busy verdicts, the once-per-episode log line and draining on
/// stop. No assertion depends on how fast the machine is: every wait is for an event, with a
/// generous time-out that only a hang reaches.
final class BulkheadTests: XCTestCase {
    /// Records what ran, what was refused and why; jobs run until `gate` opens.
    private final class Recorder: @unchecked Sendable {
        // @unchecked: every field is touched under `condition`.
        private let condition = NSCondition()
        private var gateOpen = false
        private(set) var startedJobs: [Int] = []
        private(set) var finishedJobs: [Int] = []
        private(set) var refusals: [(job: Int, refusal: Bulkhead<Int>.Refusal)] = []

        func run(_ job: Int) {
            condition.lock()
            startedJobs.append(job)
            condition.broadcast()
            while !gateOpen { condition.wait() }
            finishedJobs.append(job)
            condition.broadcast()
            condition.unlock()
        }

        func refuse(_ job: Int, _ refusal: Bulkhead<Int>.Refusal) {
            condition.lock()
            refusals.append((job, refusal))
            condition.broadcast()
            condition.unlock()
        }

        func openGate() {
            condition.lock()
            gateOpen = true
            condition.broadcast()
            condition.unlock()
        }

        func closeGate() {
            condition.lock()
            gateOpen = false
            condition.unlock()
        }

        /// Waits (up to a minute, which only a hang reaches) until `done` holds.
        func waitUntil(_ what: String, _ done: (Recorder) -> Bool) {
            condition.lock()
            defer { condition.unlock() }
            waitLocked(condition, what) { done(self) }
        }

        var snapshot: (started: [Int], finished: [Int], refused: [Int: Bulkhead<Int>.Refusal]) {
            condition.lock()
            defer { condition.unlock() }
            return (startedJobs, finishedJobs, Dictionary(uniqueKeysWithValues: refusals.map { ($0.job, $0.refusal) }))
        }
    }

    private func bulkhead(
        threads: Int, queue: Int, wait: Double, _ recorder: Recorder, logger: Logger = Logger(label: "test")
    ) -> Bulkhead<Int> {
        let bulkhead = Bulkhead<Int>(
            name: "upstream", limits: .init(threads: threads, queueLimit: queue, queueWaitSeconds: wait),
            logger: logger,
            run: { job, _ in recorder.run(job) }, refuse: { job, refusal in recorder.refuse(job, refusal) })
        bulkhead.start()
        return bulkhead
    }

    func testNoMoreJobsRunAtOnceThanItHasThreads() {
        let recorder = Recorder()
        let bulkhead = bulkhead(threads: 2, queue: 10, wait: 600, recorder)
        let verdicts = (1...5).map { bulkhead.submit($0) }
        XCTAssertEqual(verdicts[0], .runs)
        XCTAssertEqual(verdicts[1], .runs)
        XCTAssertEqual(Array(verdicts[2...]), [.waits(ahead: 0), .waits(ahead: 1), .waits(ahead: 2)])
        recorder.waitUntil("two jobs started") { $0.startedJobs.count == 2 }
        // Both threads are held by the gate: the other three can only wait.
        XCTAssertEqual(recorder.snapshot.started.count, 2)
        XCTAssertEqual(bulkhead.load.running, 2)
        XCTAssertEqual(bulkhead.load.queued, 3)

        recorder.openGate()
        recorder.waitUntil("every job finished") { $0.finishedJobs.count == 5 }
        XCTAssertEqual(Set(recorder.snapshot.finished), [1, 2, 3, 4, 5])
        XCTAssertTrue(recorder.snapshot.refused.isEmpty)
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
    }

    func testAJobOverTheQueuesBoundIsRefusedAtOnceOnTheSubmittingThread() {
        let recorder = Recorder()
        let bulkhead = bulkhead(threads: 1, queue: 1, wait: 600, recorder)
        XCTAssertEqual(bulkhead.submit(1), .runs)
        XCTAssertEqual(bulkhead.submit(2), .waits(ahead: 0))
        XCTAssertEqual(bulkhead.submit(3), .refused(.queueFull))
        // Refused before submit returned, while job 1 still holds the only thread.
        XCTAssertEqual(recorder.snapshot.refused, [3: .queueFull])

        recorder.openGate()
        recorder.waitUntil("the admitted jobs finished") { $0.finishedJobs.count == 2 }
        XCTAssertEqual(recorder.snapshot.finished.sorted(), [1, 2])
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
        XCTAssertFalse(recorder.snapshot.started.contains(3), "a refused job never runs")
    }

    func testAQueueOfNoneStillAdmitsAJobAFreeThreadTakes() {
        let recorder = Recorder()
        let bulkhead = bulkhead(threads: 1, queue: 0, wait: 600, recorder)
        XCTAssertEqual(bulkhead.submit(1), .runs)
        XCTAssertEqual(bulkhead.submit(2), .refused(.queueFull))
        recorder.openGate()
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
        XCTAssertEqual(recorder.snapshot.finished, [1])
    }

    func testAJobWaitingPastItsBoundIsRefusedWhileTheThreadsAreStillBusy() {
        let recorder = Recorder()
        let bulkhead = bulkhead(threads: 1, queue: 5, wait: 0.2, recorder)
        bulkhead.submit(1)
        recorder.waitUntil("job 1 started") { $0.startedJobs == [1] }
        XCTAssertEqual(bulkhead.submit(2), .waits(ahead: 0))
        recorder.waitUntil("job 2 was refused") { !$0.refusals.isEmpty }
        // The gate is still shut: job 2 was refused by the clock, not after a thread came free.
        let seen = recorder.snapshot
        XCTAssertEqual(seen.refused, [2: .waitedTooLong])
        XCTAssertEqual(seen.finished, [])
        XCTAssertEqual(bulkhead.load.queued, 0)

        recorder.openGate()
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
        XCTAssertEqual(recorder.snapshot.finished, [1])
    }

    func testTheBusyEpisodeIsLoggedOnceAndItsEndOnce() {
        let recorder = Recorder()
        let (logger, log) = RecordingLogHandler.logger()
        let bulkhead = bulkhead(threads: 1, queue: 0, wait: 600, recorder, logger: logger)
        bulkhead.submit(1)
        // Until its thread has taken job 1, the share has room (a job the idle thread is about
        // to take): the episode starts once the thread is busy.
        recorder.waitUntil("job 1 started") { $0.startedJobs == [1] }
        for job in 2...4 { XCTAssertEqual(bulkhead.submit(job), .refused(.queueFull)) }
        let full = { log.all.filter { $0.message.contains("the upstream lane is full") } }
        XCTAssertEqual(full().count, 1, "\(log.all.map(\.message))")
        XCTAssertEqual(full().first?.level, .warning)

        recorder.openGate()
        recorder.waitUntil("job 1 finished") { $0.finishedJobs == [1] }
        // The thread is free once its job has returned; a new job is admitted then.
        var fifth = bulkhead.submit(5)
        for _ in 0..<6000 where fifth != .runs {
            usleep(10_000)
            fifth = bulkhead.submit(5)
        }
        XCTAssertEqual(fifth, .runs)
        recorder.waitUntil("job 5 finished") { $0.finishedJobs.contains(5) }
        let ended = log.all.filter { $0.message.contains("the upstream lane has room again") }
        XCTAssertEqual(ended.count, 1)
        XCTAssertTrue(ended.first?.message.contains("3 requests were answered busy") ?? false, "\(ended)")

        // A new episode is logged again.
        recorder.closeGate()
        bulkhead.submit(6)
        recorder.waitUntil("job 6 started") { $0.startedJobs.contains(6) }
        XCTAssertEqual(bulkhead.submit(7), .refused(.queueFull))
        XCTAssertEqual(full().count, 2)
        recorder.openGate()
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
    }

    func testJobsFromManySubmittersAllRunWithNoneLostBetweenThreads() {
        let recorder = Recorder()
        recorder.openGate()
        let bulkhead = bulkhead(threads: 4, queue: 2000, wait: 600, recorder)
        DispatchQueue.concurrentPerform(iterations: 8) { submitter in
            for index in 0..<250 {
                bulkhead.submit(submitter * 1000 + index)
                if index % 50 == 0 { usleep(1000) }  // let the threads go idle now and then
            }
        }
        recorder.waitUntil("every job finished") { $0.finishedJobs.count == 2000 }
        XCTAssertEqual(Set(recorder.snapshot.finished).count, 2000)
        XCTAssertTrue(recorder.snapshot.refused.isEmpty)
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
    }

    func testStoppingRunsWhatIsQueuedAndRunningAndRefusesNewJobs() {
        let recorder = Recorder()
        let bulkhead = bulkhead(threads: 1, queue: 5, wait: 600, recorder)
        for job in 1...3 { bulkhead.submit(job) }
        recorder.waitUntil("job 1 started") { $0.startedJobs == [1] }
        // Job 1 cannot finish while the gate is shut: the drain is not over.
        XCTAssertFalse(bulkhead.stop(timeoutSeconds: 0.05))
        XCTAssertEqual(bulkhead.submit(4), .refused(.stopped))

        recorder.openGate()
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
        let seen = recorder.snapshot
        XCTAssertEqual(seen.finished, [1, 2, 3], "the queued jobs ran before the threads ended")
        XCTAssertEqual(seen.refused, [4: .stopped])
    }

    /// Jobs that park at once, and record where they ran and where their resumed work ran.
    private final class Parking: @unchecked Sendable {
        // @unchecked: every field is touched under `condition`.
        private let condition = NSCondition()
        private(set) var homes: [Int: Bulkhead<Int>.Home] = [:]
        private var ranOn: [Int: UInt] = [:]
        private(set) var resumedOnItsThread: [Int: Bool] = [:]

        func park(_ job: Int, home: Bulkhead<Int>.Home) {
            home.park(weight: 1)
            condition.lock()
            homes[job] = home
            ranOn[job] = UInt(pthread_self())
            condition.broadcast()
            condition.unlock()
        }

        /// Resumes `job`'s rest to its home, from the calling thread; the rest unparks it.
        func resume(_ job: Int) {
            condition.lock()
            let home = homes[job]!
            condition.unlock()
            home.resume { [self] in
                condition.lock()
                resumedOnItsThread[job] = ranOn[job] == UInt(pthread_self())
                condition.broadcast()
                condition.unlock()
                home.unpark(weight: 1)
            }
        }

        func waitUntil(_ what: String, _ done: (Parking) -> Bool) {
            condition.lock()
            defer { condition.unlock() }
            waitLocked(condition, what) { done(self) }
        }
    }

    private func parkingBulkhead(threads: Int, parked: Int, _ parking: Parking) -> Bulkhead<Int> {
        let bulkhead = Bulkhead<Int>(
            name: "upstream",
            limits: .init(threads: threads, queueLimit: 10_000, queueWaitSeconds: 600, parkedLimit: parked),
            logger: Logger(label: "test"),
            run: { job, home in parking.park(job, home: home) }, refuse: { job, _ in XCTFail("job \(job) refused") })
        bulkhead.start()
        return bulkhead
    }

    func testAtTheParkedBoundJobsWaitUntilAParkedOneIsDone() {
        let parking = Parking()
        let bulkhead = parkingBulkhead(threads: 3, parked: 2, parking)
        for job in 1...3 { bulkhead.submit(job) }
        parking.waitUntil("two jobs parked") { $0.homes.count == 2 }
        // A thread is free, but the bound keeps the third job in the queue.
        XCTAssertEqual(bulkhead.load.parked, 2)
        XCTAssertEqual(bulkhead.load.queued, 1)

        let first = parking.homes.keys.min()!
        parking.resume(first)
        parking.waitUntil("the third job parked once the first was done") { $0.homes.count == 3 }
        XCTAssertEqual(parking.resumedOnItsThread[first], true)
        for job in parking.homes.keys where job != first { parking.resume(job) }
        parking.waitUntil("every job's rest ran") { $0.resumedOnItsThread.count == 3 }
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
        XCTAssertEqual(bulkhead.load.parked, 0)
    }

    func testJobsThatStartedButHaveNotParkedYetCountAgainstTheParkedBound() {
        let recorder = Recorder()
        let parking = Parking()
        let bulkhead = Bulkhead<Int>(
            name: "upstream",
            limits: .init(threads: 3, queueLimit: 10, queueWaitSeconds: 600, parkedLimit: 2),
            logger: Logger(label: "test"),
            run: { job, home in
                recorder.run(job)  // held at the gate before it parks
                parking.park(job, home: home)
            }, refuse: { job, _ in XCTFail("job \(job) refused") })
        bulkhead.start()
        bulkhead.submit(1)
        bulkhead.submit(2)
        recorder.waitUntil("two jobs started") { $0.startedJobs.count == 2 }
        // Neither has parked, and a thread is free: still, both may park, which is the bound.
        XCTAssertEqual(bulkhead.load.parked, 0)
        XCTAssertEqual(bulkhead.submit(3), .waits(ahead: 0))
        XCTAssertNil(bulkhead.homeForCaller(), "two jobs about to park are at the bound")

        recorder.openGate()
        parking.waitUntil("both parked") { $0.homes.count == 2 }
        XCTAssertEqual(bulkhead.load.queued, 1, "the bound holds once they have parked")
        parking.resume(1)
        parking.waitUntil("the third job parked once the first was done") { $0.homes[3] != nil }
        for job in [2, 3] { parking.resume(job) }
        parking.waitUntil("every job's rest ran") { $0.resumedOnItsThread.count == 3 }
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
        XCTAssertEqual(recorder.snapshot.started.sorted(), [1, 2, 3])
    }

    func testResumedWorkRunsOnTheThreadThatParkedItWhoeverResumesIt() {
        let parking = Parking()
        let bulkhead = parkingBulkhead(threads: 4, parked: 10_000, parking)
        for job in 0..<400 { bulkhead.submit(job) }
        parking.waitUntil("every job parked") { $0.homes.count == 400 }
        // Resumed from eight other threads at once, in no particular order.
        DispatchQueue.concurrentPerform(iterations: 8) { resumer in
            for job in stride(from: resumer, to: 400, by: 8) { parking.resume(job) }
        }
        parking.waitUntil("every job's rest ran") { $0.resumedOnItsThread.count == 400 }
        XCTAssertEqual(parking.resumedOnItsThread.values.filter { !$0 }.count, 0)
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
    }

    func testACallerGetsAHomeOnlyWhileNoJobWaitsAndTheParkedBoundHasRoom() {
        let recorder = Recorder()
        let unstarted = Bulkhead<Int>(
            name: "upstream", limits: .init(threads: 1, queueLimit: 10, queueWaitSeconds: 600), logger: Logger(label: "test"),
            run: { job, _ in recorder.run(job) }, refuse: { job, refusal in recorder.refuse(job, refusal) })
        XCTAssertNil(unstarted.homeForCaller(), "not started")

        // A job waiting in the queue is not jumped.
        let busy = bulkhead(threads: 1, queue: 10, wait: 600, recorder)
        busy.submit(1)
        recorder.waitUntil("the first job runs") { $0.startedJobs == [1] }
        XCTAssertNotNil(busy.homeForCaller(), "the thread is busy, but nothing waits")
        busy.callerFinished()
        busy.submit(2)
        XCTAssertEqual(busy.load.queued, 1)
        XCTAssertNil(busy.homeForCaller(), "a job waits")
        recorder.openGate()
        recorder.waitUntil("both jobs ran") { $0.finishedJobs.count == 2 }
        XCTAssertNotNil(busy.homeForCaller())
        busy.callerFinished()
        XCTAssertTrue(busy.stop(timeoutSeconds: 60))
        XCTAssertNil(busy.homeForCaller(), "stopped")

        // Callers still checking count against the parked bound, and what they park counts once
        // they are done; it resumes on the share's thread.
        let parking = Parking()
        let bulkhead = parkingBulkhead(threads: 1, parked: 2, parking)
        var homes: [Bulkhead<Int>.Home] = []
        for _ in 0..<2 {
            guard let home = bulkhead.homeForCaller() else { return XCTFail("no home below the bound") }
            homes.append(home)
        }
        XCTAssertNil(bulkhead.homeForCaller(), "two callers checking are at the parked bound")
        for home in homes {
            home.park(weight: 1)
            bulkhead.callerFinished()
        }
        XCTAssertEqual(bulkhead.load.parked, 2)
        XCTAssertNil(bulkhead.homeForCaller(), "at the parked bound")
        // A job submitted now waits for room like any other.
        bulkhead.submit(7)
        XCTAssertEqual(bulkhead.load.queued, 1)
        let caller = UInt(pthread_self())
        let ranOn = ThreadLog()
        for home in homes {
            home.resume {
                ranOn.append(UInt(pthread_self()))
                home.unpark(weight: 1)
            }
        }
        let threads = ranOn.waitFor(count: 2)
        XCTAssertFalse(threads.contains(caller), "resumed on the share's thread, not the caller's")
        XCTAssertEqual(Set(threads).count, 1, "the share has one thread")
        parking.waitUntil("the waiting job parked once there was room") { $0.homes[7] != nil }
        parking.resume(7)
        parking.waitUntil("its rest ran") { $0.resumedOnItsThread[7] != nil }
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
        XCTAssertEqual(bulkhead.load.parked, 0)
    }

    func testStoppingWaitsForParkedJobs() {
        let parking = Parking()
        let bulkhead = parkingBulkhead(threads: 1, parked: 10, parking)
        bulkhead.submit(1)
        parking.waitUntil("the job parked") { $0.homes.count == 1 }
        XCTAssertFalse(bulkhead.stop(timeoutSeconds: 0.05), "a parked job keeps the lane from ending")
        parking.resume(1)
        XCTAssertTrue(bulkhead.stop(timeoutSeconds: 60))
        XCTAssertEqual(parking.resumedOnItsThread[1], true)
    }
}

/// The threads some work ran on, in the order it ran.
private final class ThreadLog: @unchecked Sendable {
    // @unchecked: `threads` is only touched under `condition`.
    private let condition = NSCondition()
    private var threads: [UInt] = []

    func append(_ thread: UInt) {
        condition.lock()
        threads.append(thread)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until `count` are logged (a minute at most, which only a hang reaches).
    func waitFor(count: Int) -> [UInt] {
        condition.lock()
        defer { condition.unlock() }
        waitLocked(condition, "\(count) logged") { threads.count >= count }
        return threads
    }
}

/// Waits on `condition`, which the caller holds locked, until `done` holds: up to a minute,
/// which only a hang reaches.
private func waitLocked(_ condition: NSCondition, _ what: String, _ done: () -> Bool) {
    let deadline = Date(timeIntervalSinceNow: 60)
    while !done() {
        if !condition.wait(until: deadline) {
            XCTFail("timed out waiting until \(what)")
            return
        }
    }
}
