import Foundation
import PushCore

/// The platforms of apps looked up in the last `lifetimeNanoseconds`, registered or not.
/// Every Token Reporter request asks for the platform of its two apps; from the database
/// that is a read transaction each, whose pages another connection's commit has just made
/// stale (pread again). Apps change only when an operator runs `pushgate apps add|remove`,
/// in another process that cannot tell this one, so an answer is kept for a short time:
/// a change reaches the serving threads within that time.
final class RecentAppPlatforms: @unchecked Sendable {
    // @unchecked: `entries` is only touched under `lock`.
    private let lock = NSLock()
    private var entries: [AppID: (platform: Platform?, until: UInt64)] = [:]
    private let lifetimeNanoseconds: UInt64
    /// Lookups of many different unknown ids (a misconfigured fleet) must not grow it unbounded.
    private let capacity = 1024

    init(lifetimeSeconds: Double) {
        lifetimeNanoseconds = UInt64(lifetimeSeconds * 1_000_000_000)
    }

    /// The remembered answer for `id`, or `lookUp()`'s, remembered.
    func platform(of id: AppID, lookUp: () throws -> Platform?) rethrows -> Platform? {
        let now = DispatchTime.now().uptimeNanoseconds
        lock.lock()
        if let entry = entries[id], entry.until > now {
            lock.unlock()
            return entry.platform
        }
        lock.unlock()
        let platform = try lookUp()
        lock.lock()
        if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
        entries[id] = (platform, now + lifetimeNanoseconds)
        lock.unlock()
        return platform
    }

    /// This process changed the apps: forget at once.
    func forget() {
        lock.lock()
        entries.removeAll()
        lock.unlock()
    }
}
