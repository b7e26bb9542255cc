import Foundation
import PushCore

/// A change in whether the store's database answers, reported once per episode rather than
/// once per failed call: a stopped server fails every request until it is back, and a log
/// line per request would bury the one that says when it started.
public enum StoreAvailabilityChange: Sendable, Equatable {
    /// The first call that found the database unreachable; `reason` is the engine's message.
    case lost(reason: String)
    /// The first call that worked again, after `seconds` and `failedCalls` failed calls.
    case recovered(seconds: Double, failedCalls: Int)
}

/// Tracks the current episode of an unreachable database for every thread of a process, and
/// reports its start and its end to `report` (the log), each once.
final class UnavailabilityEpisode: @unchecked Sendable {
    // @unchecked: `since` and `failedCalls` are only touched under `lock`.
    private let lock = NSLock()
    /// When the current episode began (`now()`), nil while the database answers.
    private var since: UInt64?
    private var failedCalls = 0
    private let report: @Sendable (StoreAvailabilityChange) -> Void

    init(report: @escaping @Sendable (StoreAvailabilityChange) -> Void) {
        self.report = report
    }

    /// A call failed because the database is unreachable.
    func failed(_ unavailable: StoreUnavailable) {
        lock.lock()
        let isStart = since == nil
        if isStart { since = Self.now() }
        failedCalls += 1
        lock.unlock()
        if isStart { report(.lost(reason: unavailable.reason)) }
    }

    /// The monotonic clock in nanoseconds, for `succeeded(startedAt:)`.
    static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    /// A call that began at `startedAt` (`now()`) worked: ends the episode, if one is going on
    /// and the call began after it did. A call that was under way when the database went away
    /// and finished just before proves nothing about its return.
    func succeeded(startedAt: UInt64) {
        lock.lock()
        guard let started = since, startedAt > started else {
            lock.unlock()
            return
        }
        let failed = failedCalls
        since = nil
        failedCalls = 0
        lock.unlock()
        report(.recovered(seconds: Double(Self.now() - started) / 1e9, failedCalls: failed))
    }
}
