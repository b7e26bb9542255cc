import Foundation
import Logging

/// A bounded share of threads with a bounded queue in front of it: at most `threads` jobs run at
/// once, at most `queueLimit` wait, and none waits longer than `queueWaitSeconds`. A job it has no
/// room for goes to `refuse` instead of `run`, so its caller gets an answer ("busy") and no
/// thread outside the share ever waits for one inside it. Stopping runs what is queued and
/// running (or refuses what outwaits its bound) before the threads end.
///
/// Knows nothing of FastCGI; `Lane` gives it accepted requests as jobs.
final class Bulkhead<Job>: @unchecked Sendable {
    // @unchecked: every mutable field is read and written under `condition`; jobs pass from the
    // submitting thread to one of the share's threads through the queue, and are used by one
    // thread at a time.

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
    }

    let name: String
    let limits: Limits
    private let run: @Sendable (Job, _ thread: Int) -> Void
    private let refuse: @Sendable (Job, Refusal) -> Void
    private let logger: Logger

    private let condition = NSCondition()
    private var queue: [(job: Job, deadline: Date)] = []
    /// The front of `queue`: taking from the front moves this instead of the array's elements.
    private var head = 0
    private var running = 0
    /// Threads of the share waiting for a job.
    private var idleThreads = 0
    private var liveThreads = 0
    private var started = false
    private var stopping = false
    /// Jobs refused since the share last had room; nil when it has room.
    private var refusedInEpisode: Int?

    /// - Parameters:
    ///   - run: answers a job on one of the share's threads (`thread` is its index, for state
    ///     of its own).
    ///   - refuse: answers a job there was no room for: on the submitting thread (queue full,
    ///     stopped) or on the share's clock thread (waited too long). Keep it short.
    init(
        name: String, limits: Limits, logger: Logger, run: @escaping @Sendable (Job, _ thread: Int) -> Void,
        refuse: @escaping @Sendable (Job, Refusal) -> Void
    ) {
        self.name = name
        self.limits = Limits(
            threads: max(1, limits.threads), queueLimit: max(0, limits.queueLimit),
            queueWaitSeconds: max(0, limits.queueWaitSeconds))
        self.logger = logger
        self.run = run
        self.refuse = refuse
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
        // Queued jobs that idle threads are about to take do not wait: only those beyond the
        // threads count against the queue.
        let waiting = running + (queue.count - head) - limits.threads
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
            // for every job); if the clock thread gets the signal instead, it passes it on.
            condition.signal()
        case .waits:
            queue.append((job, Date(timeIntervalSinceNow: limits.queueWaitSeconds)))
            // Every thread is busy: this wakes the clock thread, for the job's deadline.
            condition.broadcast()
        }
        condition.unlock()
        if case .refused(let refusal) = verdict { refuse(job, refusal) }
        return verdict
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
        condition.broadcast()
        while liveThreads > 0 {
            if !condition.wait(until: deadline) { return liveThreads == 0 }
        }
        return true
    }

    /// Jobs running and waiting now.
    var load: (running: Int, queued: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (running, queue.count - head)
    }

    private func runJobs(thread index: Int) {
        condition.lock()
        while true {
            while queue.count == head && !stopping {
                idleThreads += 1
                condition.wait()
                idleThreads -= 1
            }
            guard let entry = takeFirst() else { break }
            if queue.count == head {
                endEpisode()
            } else if idleThreads > 0 {
                condition.signal()  // more jobs than this one: wake the next idle thread
            }
            running += 1
            condition.unlock()
            run(entry.job, index)
            condition.lock()
            running -= 1
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
            if head < queue.count && idleThreads > 0 {
                // A signal meant for an idle thread may have woken this one instead.
                condition.signal()
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
            "the \(name) lane is full (\(running) of \(limits.threads) threads busy, \(queue.count - head) of \(limits.queueLimit) waiting): answering busy until it has room; first refusal because \(refusal)"
        )
    }

    private func threadEnded() {
        condition.lock()
        liveThreads -= 1
        condition.broadcast()
        condition.unlock()
    }
}
