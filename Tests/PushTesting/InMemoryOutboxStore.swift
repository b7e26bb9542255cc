import Foundation
import Logging
import PushCore
import XCTest
@testable import PushDelivery

/// An `OutboxStore` in memory with `SQLiteStore`'s semantics: a claim leases its rows (the
/// lease end is the next due time), a dead token prunes the device and its queued rows once.
/// `@unchecked Sendable`: state is guarded by `lock`.
public final class InMemoryOutboxStore: OutboxStore, @unchecked Sendable {
    public struct Device {
        public var appID: AppID
        public var token: DeviceToken
        /// Unix ms of the last registration.
        public var updatedAt: Int64
    }

    private struct Row {
        public var id: Int64
        public var message: OutboxMessage
        public var deviceID: Int64
        public var dead = false
        public var attempts = 0
        public var nextAttemptAt: Int64
        public var claimedBy: String?
        public var lastError: String?
        public var createdAt: Int64
    }

    private let lock = NSLock()
    private let clock: OutboxTestClock
    private var deviceTable: [Int64: Device] = [:]
    private var rows: [Row] = []
    private var nextRowID: Int64 = 1
    private var logEntries: [DeliveryLogEntry] = []
    private var pruned: [Int64] = []

    public init(clock: OutboxTestClock) { self.clock = clock }

    public static func token(_ deviceID: Int64) -> DeviceToken {
        DeviceToken(bytes: Array(repeating: UInt8(deviceID), count: 32))
    }

    /// Devices 1…count (or after the last), registered an hour ago.
    public func addDevices(_ count: Int) -> [Int64] {
        lock.withLock {
            let first = Int64(deviceTable.count) + 1
            let ids = Array(first..<first + Int64(count))
            for id in ids {
                deviceTable[id] = Device(
                    appID: AppID("com.example.app")!, token: Self.token(id), updatedAt: clock.now - 3_600_000)
            }
            return ids
        }
    }

    public var devices: [Int64: Device] { lock.withLock { deviceTable } }
    public var prunes: [Int64] { lock.withLock { pruned } }
    /// Oldest first.
    public var log: [DeliveryLogEntry] { lock.withLock { logEntries } }

    public func enqueue(_ message: OutboxMessage, deviceIDs: [Int64]) throws -> Int {
        lock.withLock {
            let now = clock.now
            var seen = Set<Int64>()
            var count = 0
            for id in deviceIDs where deviceTable[id] != nil && seen.insert(id).inserted {
                rows.append(Row(id: nextRowID, message: message, deviceID: id, nextAttemptAt: now, createdAt: now))
                nextRowID += 1
                count += 1
            }
            return count
        }
    }

    public func claimDue(limit: Int, now: Int64, lease: Int64, node: String) throws -> [OutboxDelivery] {
        lock.withLock {
            let due = rows.indices.filter { !rows[$0].dead && rows[$0].nextAttemptAt <= now }
                .sorted { (rows[$0].nextAttemptAt, rows[$0].id) < (rows[$1].nextAttemptAt, rows[$1].id) }
                .prefix(limit)
            return due.map { index in
                rows[index].attempts += 1
                rows[index].nextAttemptAt = now + lease
                rows[index].claimedBy = node
                let row = rows[index]
                let device = deviceTable[row.deviceID]!
                return OutboxDelivery(
                    id: row.id, payloadID: 1, attempts: row.attempts,
                    notification: PushCore.Notification(
                        appID: device.appID, token: device.token, deviceID: row.deviceID, apns: row.message.apns,
                        fcm: row.message.fcm),
                    source: row.message.source)
            }
        }
    }

    public func complete(_ outcomes: [(delivery: OutboxDelivery, outcome: OutboxOutcome)], now: Int64) throws {
        lock.withLock {
            for (delivery, outcome) in outcomes {
                guard let index = rows.firstIndex(where: { $0.id == delivery.id && !$0.dead }),
                    let device = deviceTable[rows[index].deviceID]
                else { continue }
                let deviceID = rows[index].deviceID
                let kind: DeliveryLogEntry.Kind
                switch outcome {
                case .delivered:
                    rows.remove(at: index)
                    kind = .delivered
                case .retry(let at, let error):
                    rows[index].nextAttemptAt = at
                    rows[index].claimedBy = nil
                    rows[index].lastError = error
                    kind = .retry
                case .dead(let error):
                    rows[index].dead = true
                    rows[index].claimedBy = nil
                    rows[index].lastError = error
                    kind = .dead
                case .deadToken(_, let since):
                    if since.map({ device.updatedAt <= $0 }) ?? true {
                        deviceTable[deviceID] = nil
                        pruned.append(deviceID)
                        rows.removeAll { $0.deviceID == deviceID }
                        kind = .pruned
                    } else {
                        rows.remove(at: index)
                        kind = .kept
                    }
                }
                logEntries.append(
                    DeliveryLogEntry(
                        at: now, appID: device.appID.rawValue, token: device.token.description, kind: kind, detail: nil,
                        source: delivery.source))
            }
        }
    }

    /// Fan-outs in steps are the SQL stores' (publishes to interests): this store queues only
    /// lists of devices, all at once.
    public func continueFanOuts(limit: Int, now: Int64, lease: Int64, node: String) throws -> FanOutProgress {
        .none
    }
    public func fanOutsInProgress() throws -> Int { 0 }

    public func nextDueAt() throws -> Int64? {
        lock.withLock { rows.filter { !$0.dead }.map(\.nextAttemptAt).min() }
    }

    public func claims() throws -> [OutboxClaim] {
        lock.withLock {
            Dictionary(grouping: rows.filter { $0.claimedBy != nil && !$0.dead }, by: \.claimedBy)
                .map { OutboxClaim(node: $0.key, rows: $0.value.count, leasedUntil: $0.value.map(\.nextAttemptAt).max()!) }
                .sorted { ($0.node ?? "") < ($1.node ?? "") }
        }
    }

    public func releaseClaims(heldBy node: String?) throws -> Int {
        lock.withLock {
            let now = clock.now
            var count = 0
            for index in rows.indices
            where rows[index].claimedBy != nil && !rows[index].dead && (node == nil || rows[index].claimedBy == node) {
                rows[index].claimedBy = nil
                rows[index].nextAttemptAt = now
                count += 1
            }
            return count
        }
    }

    public func pendingCount() throws -> Int { lock.withLock { rows.filter { !$0.dead }.count } }

    public func deadLetters(limit: Int) throws -> [OutboxDeadLetter] {
        lock.withLock {
            rows.filter(\.dead).prefix(limit).map { row in
                let device = deviceTable[row.deviceID]!
                return OutboxDeadLetter(
                    id: row.id, source: row.message.source, deviceID: row.deviceID, appID: device.appID.rawValue,
                    token: device.token.description, attempts: row.attempts, lastError: row.lastError,
                    createdAt: row.createdAt)
            }
        }
    }

    public func retryDeadLetters() throws -> Int {
        lock.withLock {
            let now = clock.now
            var count = 0
            for index in rows.indices where rows[index].dead {
                rows[index].dead = false
                rows[index].attempts = 0
                rows[index].nextAttemptAt = now
                count += 1
            }
            return count
        }
    }

    public func deliveryLog(limit: Int) throws -> [DeliveryLogEntry] {
        lock.withLock { Array(logEntries.reversed().prefix(limit)) }
    }

    public func trimDeliveryLog(keeping: Int) throws -> Int {
        lock.withLock {
            let excess = max(logEntries.count - keeping, 0)
            logEntries.removeFirst(excess)
            return excess
        }
    }

    public func deleteUnusedPayloads() throws -> Int { 0 }
}
