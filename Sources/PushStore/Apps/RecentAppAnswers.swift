import Foundation
import PushCore

/// Answers about apps looked up in the last `lifetimeNanoseconds`. Apps change only when an
/// operator runs `pushgate apps add|remove`, usually in another process that cannot tell this
/// one, while every report asks for its apps' platforms and every push for its app: from the
/// database that is a read transaction each (on SQLite one whose pages another connection's
/// commit has just made stale, on PostgreSQL a round trip). So an answer is kept for a short
/// time, and a change reaches the serving threads within that time.
final class RecentAppAnswers<Answer>: @unchecked Sendable {
    // @unchecked: `entries` is only touched under `lock`; answers are values.
    private let lock = NSLock()
    private var entries: [AppID: (answer: Answer, until: UInt64)] = [:]
    private let lifetimeNanoseconds: UInt64
    private let now: @Sendable () -> UInt64
    /// Lookups of many different ids (a misconfigured fleet) must not grow it unbounded.
    private let capacity = 1024

    init(lifetimeSeconds: Double, now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        lifetimeNanoseconds = UInt64(lifetimeSeconds * 1_000_000_000)
        self.now = now
    }

    /// The remembered answer for `id`, or `lookUp()`'s, remembered when `keep` says so.
    func answer(for id: AppID, keep: (Answer) -> Bool = { _ in true }, lookUp: () throws -> Answer) rethrows -> Answer {
        let now = now()
        lock.lock()
        if let entry = entries[id], entry.until > now {
            lock.unlock()
            return entry.answer
        }
        lock.unlock()
        let answer = try lookUp()
        guard keep(answer) else { return answer }
        lock.lock()
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[id] = (answer, now + lifetimeNanoseconds)
        lock.unlock()
        return answer
    }

    /// This process changed the apps: forget at once.
    func forget() {
        lock.lock()
        entries.removeAll()
        lock.unlock()
    }
}

/// What a store remembers of the apps (see `RecentAppAnswers`), for one second.
struct RecentApps: Sendable {
    /// Every platform answer, an unknown app's too: the Token Reporter asks on every report.
    let platforms = RecentAppAnswers<Platform?>(lifetimeSeconds: 1)
    /// Registered apps only, so that an app added in another process is used at once; an app
    /// replaced or removed there is seen within the lifetime.
    let apps = RecentAppAnswers<RegisteredApp?>(lifetimeSeconds: 1)

    func forget() {
        platforms.forget()
        apps.forget()
    }
}
