import Dispatch
import Foundation
import Logging
import PushCore

/// A bounded share of threads with a bounded queue in front of it: at most `threads` jobs run at
/// once, at most `queueLimit` wait, and none waits longer than `queueWaitSeconds`. A job it has no
/// room for goes to `refuse` instead of `run`, so its caller gets an answer ("busy") and no
/// thread outside the share ever waits for one inside it. Stopping runs what is queued and
/// running (or refuses what outwaits its bound) before the threads end.
///
/// A job may also park (see `Home`): its thread goes on to other jobs while the job waits on
/// something outside, and what it does next is resumed to that same thread. Parked jobs are
/// bounded by count (running ones count too, as they may park) and by weight: while either
/// bound is reached, no new job starts, so new ones wait in the queue (and are refused past
/// its bounds) instead of piling up.
///
/// Knows nothing of FastCGI; `Lane` gives it accepted requests as jobs.
final class Bulkhead<Job>: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `condition`; jobs pass from the
    // submitting thread to one of the share's threads through the queue, and are used by one
    // thread at a time. Each thread sleeps on a semaphore of its own, so that work resumed to it
    // wakes it and no other.

    /// Why a job was refused.
    enum Refusal: Equatable, CustomStringConvertible {
        /// `queueLimit` jobs were already waiting.
        case queueFull
        /// It waited `queueWaitSeconds` without a thread taking it.
        case waitedTooLong
        /// Submitted after `stop()`.
        case stopped

        var description: String {
            switch self {
            case .queueFull: return "its queue was full"
            case .waitedTooLong: return "it waited its queue's longest wait"
            case .stopped: return "it was stopping"
            }
        }
    }

    /// What became of a submitted job.
    enum Verdict: Equatable {
        /// A free thread takes it at once.
        case runs
        /// It waits behind `ahead` others for a thread.
        case waits(ahead: Int)
        /// No room: it went to `refuse`.
        case refused(Refusal)
    }

    struct Limits: Equatable {
        var threads: Int
        var queueLimit: Int
        var queueWaitSeconds: Double
        /// Jobs parked or running (and so perhaps about to park) at once.
        var parkedLimit: Int = .max
        /// The parked jobs' summed weight (a job's own weight may take it past this).
        var parkedWeightLimit: Int = .max
    }

    /// A thread of the share as a job sees it: its home for parked work.
    final class Home: HomeThread, @unchecked Sendable {
        // @unchecked: immutable; the bulkhead it points to does its own locking.
        let thread: Int
        private weak var bulkhead: Bulkhead?

        fileprivate init(thread: Int, bulkhead: Bulkhead) {
            self.thread = thread
            self.bulkhead = bulkhead
        }

        /// Before the job starts its parked work: it now counts against the bounds, and stopping
        /// waits for it.
        func park(weight: Int) {
            bulkhead?.park(weight: weight)
        }

        /// When the parked work has answered (on this thread).
        func unpark(weight: Int) {
            bulkhead?.unpark(weight: weight)
        }

        func resume(_ work: @escaping @Sendable () -> Void) {
            bulkhead?.resume(work, on: thread)
        }
    }

    let name: String
    let limits: Limits
    private let run: @Sendable (Job, _ home: Home) -> Void
    private let refuse: @Sendable (Job, Refusal) -> Void
    private let logger: Logger

    /// The clock thread and `stop` wait on it; the share's threads only use its lock.
    private let condition = NSCondition()
    private var queue: [(job: Job, deadline: Date)] = []
    /// The front of `queue`: taking from the front moves this instead of the array's elements.
    private var head = 0
    private var running = 0
    /// Threads of the share asleep on their semaphore, waiting for a job or resumed work; a
    /// thread is taken out of it by whoever wakes it.
    private var idle: [Int] = []
    private let wakers: [DispatchSemaphore]
    private var homes: [Home] = []
    /// Work resumed to each thread, run before any new job.
    private var resumed: [[@Sendable () -> Void]] = []
    private var parked = 0
    private var parkedWeight = 0
    private var liveThreads = 0
    private var started = false
    /// Jobs their callers are checking on their own threads (see `homeForCaller`): each counts
    /// as parked until `callerFinished`, so that callers at once cannot pass the bound.
    private var claimed = 0
    /// The thread the last caller's job was homed on, when none was idle.
    private var lastCallerHome = 0
    private var stopping = false
    /// Jobs refused since the share last had room; nil when it has room.
    private var refusedInEpisode: Int?

    /// - Parameters:
    ///   - run: answers a job on one of the share's threads (`home.thread` is its index, for
    ///     state of its own), or parks it there.
    ///   - refuse: answers a job there was no room for: on the submitting thread (queue full,
    ///     stopped) or on the share's clock thread (waited too long). Keep it short.
    init(
        name: String, limits: Limits, logger: Logger, run: @escaping @Sendable (Job, _ home: Home) -> Void,
        refuse: @escaping @Sendable (Job, Refusal) -> Void
    ) {
        self.name = name
        self.limits = Limits(
            threads: max(1, limits.threads), queueLimit: max(0, limits.queueLimit),
            queueWaitSeconds: max(0, limits.queueWaitSeconds), parkedLimit: max(1, limits.parkedLimit),
            parkedWeightLimit: max(1, limits.parkedWeightLimit))
        self.logger = logger
        self.run = run
        self.refuse = refuse
        wakers = (0..<self.limits.threads).map { _ in DispatchSemaphore(value: 0) }
        resumed = Array(repeating: [], count: self.limits.threads)
        homes = (0..<self.limits.threads).map { Home(thread: $0, bulkhead: self) }
    }

    /// Starts the share's threads and the clock thread that refuses jobs past their wait.
    func start() {
        condition.lock()
        guard !started else {
            condition.unlock()
            return
        }
        started = true
        liveThreads = limits.threads + 1
        condition.unlock()
        for index in 0..<limits.threads {
            let thread = Thread { [self] in
                runJobs(thread: index)
                threadEnded()
            }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
        let clock = Thread { [self] in
            refuseLateJobs()
            threadEnded()
        }
        clock.name = "\(name)-clock"
        clock.start()
    }

    /// Queues `job` for the next free thread, or refuses it at once when the queue is full.
    @discardableResult
    func submit(_ job: Job) -> Verdict {
        condition.lock()
        let waiting = jobsWaiting
        let verdict: Verdict
        if stopping || !started {
            verdict = .refused(.stopped)
        } else if waiting < 0 {
            verdict = .runs
        } else if waiting < limits.queueLimit {
            verdict = .waits(ahead: waiting)
        } else {
            verdict = .refused(.queueFull)
        }
        switch verdict {
        case .refused(let refusal):
            noteRefusal(refusal)
        case .runs:
            queue.append((job, Date(timeIntervalSinceNow: limits.queueWaitSeconds)))
            // One idle thread is enough (waking all of them would cost a context switch each
            // for every job).
            if !wakeOne() { condition.broadcast() }
        case .waits:
            queue.append((job, Date(timeIntervalSinceNow: limits.queueWaitSeconds)))
            // No thread takes it now: this wakes the clock thread, for the job's deadline.
            condition.broadcast()
        }
        condition.unlock()
        if case .refused(let refusal) = verdict { refuse(job, refusal) }
        return verdict
    }

    /// A home on the share for a job its submitter answers on its own thread instead of
    /// submitting it: given only while no job waits for a thread and the parked bounds have
    /// room, so that it jumps no one. Until `callerFinished` the job counts as parked. What it
    /// parks resumes on that home: an idle thread of the share when there is one, else the
    /// next in turn. Nil: submit the job.
    func homeForCaller() -> Home? {
        condition.lock()
        defer { condition.unlock() }
        guard started, !stopping, hasRoomToPark, jobsWaiting <= 0 else { return nil }
        claimed += 1
        endEpisode()  // there is room again
        if let thread = idle.last { return homes[thread] }
        lastCallerHome = (lastCallerHome + 1) % homes.count
        return homes[lastCallerHome]
    }

    /// The job of a `homeForCaller` is answered or parked (and so counted as parked itself).
    func callerFinished() {
        condition.lock()
        claimed -= 1
        if stopping && parked == 0 && claimed == 0 {
            wakeAll()
        } else if head < queue.count {
            wakeOne()  // the bounds may have room again for a waiting job
        }
        condition.unlock()
    }

    /// Takes no more jobs, lets the queued and running ones finish (queued ones are still
    /// refused past their wait), and waits up to `timeoutSeconds` for the threads to end.
    /// False if some still run then.
    @discardableResult
    func stop(timeoutSeconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeoutSeconds)
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        wakeAll()
        condition.broadcast()
        while liveThreads > 0 {
            if !condition.wait(until: deadline) { return liveThreads == 0 }
        }
        return true
    }

    /// Jobs running, waiting and parked now.
    var load: (running: Int, queued: Int, parked: Int) {
        condition.withLock { (running, queue.count - head, parked) }
    }

    /// Work resumed to a thread first, then new jobs while the parked bounds allow; ends once
    /// stopping has nothing queued or parked left.
    private func runJobs(thread index: Int) {
        condition.lock()
        while true {
            if !resumed[index].isEmpty {
                let work = resumed[index]
                resumed[index] = []
                condition.unlock()
                for item in work { item() }
                condition.lock()
                continue
            }
            if hasRoomToPark, let entry = takeFirst() {
                if queue.count == head {
                    endEpisode()
                } else {
                    wakeOne()  // more jobs than this one
                }
                running += 1
                condition.unlock()
                run(entry.job, homes[index])
                condition.lock()
                running -= 1
                continue
            }
            if stopping && queue.count == head && parked == 0 && claimed == 0 { break }
            idle.append(index)
            condition.unlock()
            wakers[index].wait()
            condition.lock()
        }
        condition.unlock()
    }

    /// Queued jobs waiting for a thread, under the lock; negative: threads free beyond them.
    /// Queued jobs that idle threads are about to take do not wait: only those beyond the
    /// threads do. While the parked bounds are reached, all of them wait.
    private var jobsWaiting: Int {
        hasRoomToPark ? running + (queue.count - head) - limits.threads : queue.count - head
    }

    /// A running job has not parked yet but may: it counts against the count bound as a
    /// claimed one does, or threads taking jobs at once would all start while none had parked
    /// and pass the bound together (a job parked from `run` counts twice until `run` returns).
    private var hasRoomToPark: Bool {
        parked + claimed + running < limits.parkedLimit && parkedWeight < limits.parkedWeightLimit
    }

    /// Wakes an idle thread when one may start a job, under the lock; false when none did.
    @discardableResult
    private func wakeOne() -> Bool {
        guard hasRoomToPark, let thread = idle.popLast() else { return false }
        wakers[thread].signal()
        return true
    }

    private func wakeAll() {
        for thread in idle { wakers[thread].signal() }
        idle.removeAll()
    }

    private func park(weight: Int) {
        condition.lock()
        parked += 1
        parkedWeight += weight
        condition.unlock()
    }

    private func unpark(weight: Int) {
        condition.lock()
        parked -= 1
        parkedWeight -= weight
        if stopping && parked == 0 {
            wakeAll()  // threads with nothing left to do may end now
        } else if head < queue.count {
            wakeOne()  // the bounds may have room again for a waiting job
        }
        condition.unlock()
    }

    private func resume(_ work: @escaping @Sendable () -> Void, on thread: Int) {
        condition.lock()
        resumed[thread].append(work)
        if let position = idle.firstIndex(of: thread) {
            idle.remove(at: position)
            wakers[thread].signal()
        }
        condition.unlock()
    }

    private func refuseLateJobs() {
        condition.lock()
        while true {
            // Every job waits the same bound, so the queue is in deadline order: the late ones
            // are at its front.
            var late: [Job] = []
            let now = Date()
            while head < queue.count, queue[head].deadline <= now, let entry = takeFirst() {
                late.append(entry.job)
                noteRefusal(.waitedTooLong)
            }
            if !late.isEmpty {
                condition.unlock()
                for job in late { refuse(job, .waitedTooLong) }
                condition.lock()
                continue
            }
            if head < queue.count {
                _ = condition.wait(until: queue[head].deadline)
            } else if stopping && liveThreads == 1 {
                break  // the share's threads have ended, so nothing can be queued any more
            } else {
                condition.wait()
            }
        }
        condition.unlock()
    }

    /// The queue's front, under the lock; nil when it is empty.
    private func takeFirst() -> (job: Job, deadline: Date)? {
        guard head < queue.count else { return nil }
        let entry = queue[head]
        head += 1
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
        return entry
    }

    /// A thread took the last waiting job: the share keeps up again, which ends a busy episode.
    private func endEpisode() {
        guard let refused = refusedInEpisode else { return }
        refusedInEpisode = nil
        logger.notice("the \(name) lane has room again: \(refused) requests were answered busy meanwhile")
    }

    /// Counts a refusal, under the lock; the first of an episode is logged, the rest counted.
    private func noteRefusal(_ refusal: Refusal) {
        if let refused = refusedInEpisode {
            refusedInEpisode = refused + 1
            return
        }
        refusedInEpisode = 1
        logger.warning(
            "the \(name) lane is full (\(running) of \(limits.threads) threads busy, \(parked) requests parked, \(queue.count - head) of \(limits.queueLimit) waiting): answering busy until it has room; first refusal because \(refusal)"
        )
    }

    private func threadEnded() {
        condition.lock()
        liveThreads -= 1
        condition.broadcast()
        condition.unlock()
    }
}
