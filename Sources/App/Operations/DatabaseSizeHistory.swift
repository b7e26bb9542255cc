import Foundation
import PushCore

/// The database's size as this `serve` sampled it, once an hour (on housekeeping's timer, on
/// every node), so that /status can say how much it grew over the last day: anyone can write
/// to the client-side APIs, and an operator should see the growth before the disk fills.
///
/// Kept in memory, about a day of samples: after a start, the growth is known once the process
/// has run a day. No schema holds them (doctor, a process of its own, shows the size alone).
final class DatabaseSizeHistory: @unchecked Sendable {
    // @unchecked: `samples` is touched only under `lock`.
    private let lock = NSLock()
    /// Oldest first, one an hour at most, none older than `keptSeconds`.
    private var samples: [DatabaseSize.Sample] = []
    static let intervalSeconds: Int64 = 3_600
    static let keptSeconds: Int64 = 26 * 3_600

    /// Records `measure()` when the newest sample is an hour old (or there is none).
    func sampleIfDue(now: Int64, measure: () throws -> Int64) throws {
        let due = lock.withLock { samples.last.map { now - $0.takenAt >= Self.intervalSeconds } ?? true }
        guard due else { return }
        let bytes = try measure()
        lock.withLock {
            samples.append(DatabaseSize.Sample(takenAt: now, bytes: bytes))
            samples.removeAll { now - $0.takenAt > Self.keptSeconds }
        }
    }

    /// `bytes` now, with the newest sample at least a day old.
    func size(bytes: Int64, now: Int64) -> DatabaseSize {
        let dayAgo = lock.withLock { samples.last { now - $0.takenAt >= 86_400 } }
        return DatabaseSize(bytes: bytes, dayAgo: dayAgo)
    }
}
