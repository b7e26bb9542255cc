import PushCore

// OutboxStore: the durable fan-out queue and its log.
extension SQLStore {
    /// The store's clock in the outbox's unit (ms). Enqueued rows are due from the start of
    /// the current second: at most a second early, never late.
    private var nowMilliseconds: Int64 { clock() * 1000 }

    public func enqueue(_ message: OutboxMessage, deviceIDs: [Int64]) throws -> Int {
        guard !deviceIDs.isEmpty else { return 0 }
        let now = nowMilliseconds
        return try write { try Self.enqueue(message, deviceIDs: deviceIDs, now: now, in: $0) }
    }

    /// The body of `enqueue`, for store code that selects the devices of a fan-out itself
    /// (interests, topics) and wants the selection and the queueing in one transaction.
    /// A device listed twice is queued once.
    static func enqueue(_ message: OutboxMessage, deviceIDs: [Int64], now: Int64, in database: some SQLConnection) throws -> Int {
        var seen = Set<Int64>(minimumCapacity: deviceIDs.count)
        let unique = deviceIDs.filter { seen.insert($0).inserted }
        return try enqueue(message, now: now, in: database) { payloadID in
            try OutboxTable.insert(payloadID: payloadID, deviceIDs: unique, now: now, in: database)
        }
    }

    /// Stores `message`'s payload and lets `queueRows` queue its rows for that payload id;
    /// returns how many it queued. A payload nobody receives (no device left, no subscriber)
    /// is not kept.
    static func enqueue(
        _ message: OutboxMessage, now: Int64, in database: some SQLConnection, queueRows: (_ payloadID: Int64) throws -> Int
    ) throws -> Int {
        let payloadID = try OutboxPayloadTable.insert(message, now: now, in: database)
        let queued = try queueRows(payloadID)
        if queued == 0 {
            try OutboxPayloadTable.delete(id: payloadID, in: database)
        } else {
            try OutboxTable.announce(in: database)
        }
        return queued
    }

    public func claimDue(limit: Int, now: Int64, lease: Int64, node: String) throws -> [OutboxDelivery] {
        guard limit > 0 else { return [] }
        // The claim locks what it takes and skips what others hold (see OutboxTable).
        return try lockingWrite { database in
            let rows = try OutboxTable.claimDue(limit: limit, now: now, until: now + lease, node: node, in: database)
            return try Self.deliveries(of: rows, in: database)
        }
    }

    /// Claimed rows as the deliverer takes them, each with its publish's payload.
    private static func deliveries(of rows: [OutboxTable.DueRow], in database: some SQLConnection) throws
        -> [OutboxDelivery]
    {
        // A fan-out's rows share one payload: read and decode it once per claim, not per row.
        var payloads: [Int64: OutboxPayloadTable.Payload] = [:]
        var deliveries: [OutboxDelivery] = []
        deliveries.reserveCapacity(rows.count)
        for row in rows {
            let payload: OutboxPayloadTable.Payload
            if let known = payloads[row.payloadID] {
                payload = known
            } else {
                // The foreign key promises the row; its absence means a damaged file.
                guard let loaded = try OutboxPayloadTable.payload(id: row.payloadID, in: database) else {
                    throw StoredValueError(
                        table: "outbox", column: "payload_id", value: "\(row.payloadID)", rowKey: "\(row.id)")
                }
                payloads[row.payloadID] = loaded
                payload = loaded
            }
            var apns = payload.apns
            // A device's own APNs topic (cospace registers its bundle id) unless the
            // publish named one.
            if apns?.topic == nil, let topic = row.apnsTopic { apns?.topic = topic }
            let notification = Notification(
                appID: row.appID, token: row.token, deviceID: row.deviceID, sandbox: row.sandbox, apns: apns,
                fcm: payload.fcm, web: payload.web)
            deliveries.append(
                OutboxDelivery(
                    id: row.id, payloadID: row.payloadID, attempts: Int(row.attempts) + 1,
                    notification: notification, source: payload.source))
        }
        return deliveries
    }

    public func complete(_ outcomes: [(delivery: OutboxDelivery, outcome: OutboxOutcome)], now: Int64) throws {
        guard !outcomes.isEmpty else { return }
        let finishedPayloads = try write { database -> Set<Int64> in
            var payloadIDs = Set<Int64>()
            // What happened to each row still there, by its place in `outcomes`. Each action
            // first finds whether the row is still there: a row whose device was deleted since
            // the claim went with it, and there is nothing left to do or log.
            var finished: [(index: Int, kind: DeliveryLogEntry.Kind, detail: String?)] = []
            finished.reserveCapacity(outcomes.count)
            // Dead tokens first, one by one (they are few): pruning a device cascades every other
            // row queued for it, and those of this batch then count as gone, as when a device
            // goes between the claim and here.
            for (index, (delivery, outcome)) in outcomes.enumerated() {
                guard case .deadToken(let reason, let since) = outcome else { continue }
                // The row first: while it exists its device is the one the push went to (a
                // device id could be reused after a delete, never while a row refers to it).
                guard try OutboxTable.delete(id: delivery.id, in: database), let deviceID = delivery.notification.deviceID
                else { continue }
                payloadIDs.insert(delivery.payloadID)
                // Re-registered after the token died, the device stays and only this push is over.
                let pruned = try Self.prune(deviceID: deviceID, deadSince: since, in: database)
                finished.append((index, pruned ? .pruned : .kept, reason))
            }
            // The rest in one statement per kind of outcome for the whole batch.
            var delivered: [Int] = []
            var retried: [(index: Int, at: Int64, error: String)] = []
            var buried: [(index: Int, error: String)] = []
            for (index, (_, outcome)) in outcomes.enumerated() {
                switch outcome {
                case .delivered: delivered.append(index)
                case .retry(let at, let error): retried.append((index, at, error))
                case .dead(let error): buried.append((index, error))
                case .deadToken: break
                }
            }
            let deleted = try OutboxTable.delete(ids: delivered.map { outcomes[$0].delivery.id }, in: database)
            for index in delivered where deleted.contains(outcomes[index].delivery.id) {
                guard case .delivered(let upstreamID) = outcomes[index].outcome else { continue }
                payloadIDs.insert(outcomes[index].delivery.payloadID)
                finished.append((index, .delivered, upstreamID))
            }
            let rescheduled = try OutboxTable.reschedule(
                retried.map { (outcomes[$0.index].delivery.id, $0.at, $0.error) }, in: database)
            for retry in retried where rescheduled.contains(outcomes[retry.index].delivery.id) {
                finished.append((retry.index, .retry, retry.error))
            }
            let dead = try OutboxTable.bury(buried.map { (outcomes[$0.index].delivery.id, $0.error) }, in: database)
            for burial in buried where dead.contains(outcomes[burial.index].delivery.id) {
                finished.append((burial.index, .dead, burial.error))
            }

            // The log and the devices' last outcomes, in the batch's order.
            finished.sort { $0.index < $1.index }
            try DeliveryLogTable.append(
                finished.map { entry in
                    let delivery = outcomes[entry.index].delivery
                    return (
                        delivery.notification.appID.rawValue, delivery.notification.token, entry.kind, entry.detail,
                        delivery.source
                    )
                },
                at: now, in: database)
            try DeviceTable.recordOutcomes(
                finished.compactMap { entry in
                    guard entry.kind != .pruned, let deviceID = outcomes[entry.index].delivery.notification.deviceID
                    else { return nil }
                    return (deviceID, entry.kind.deviceSummary(entry.detail))
                },
                now: now / 1000, in: database)
            return payloadIDs
        }
        // A payload whose last row this batch finished goes in a transaction of its own.
        // Asking whether a payload still has rows reads the rows another node is completing
        // at the same moment: inside the completion, two nodes draining one fan-out made each
        // other's SERIALIZABLE transactions fail, and one of them ran its whole batch again.
        // A payload left here (this fails, or the process stops first) goes with
        // housekeeping's sweep of unused payloads, so a failure is not the batch's.
        if !finishedPayloads.isEmpty {
            _ = try? write { try OutboxPayloadTable.deleteIfUnused(finishedPayloads, in: $0) }
        }
    }

    public func continueFanOuts(limit: Int, now: Int64, lease: Int64, node: String) throws -> FanOutProgress {
        guard limit > 0 else { return .none }
        let claim = OutboxLease(until: now + lease, node: node)
        return try write { database in
            guard let fanOut = try InterestFanOutTable.oldest(in: database) else { return .none }
            let step = try InterestFanOut.step(fanOut, budget: limit, now: now, claim: claim, in: database)
            let claimed = try Self.deliveries(of: OutboxTable.claimed(ids: step.queuedIDs, in: database), in: database)
            let remaining: Bool
            if step.finished {
                try InterestFanOutTable.delete(payloadID: fanOut.payloadID, in: database)
                // Every row of the publish may have been delivered before its last step: the
                // payload goes now, as the last completion would have taken it.
                try OutboxPayloadTable.deleteIfUnused([fanOut.payloadID], in: database)
                remaining = try InterestFanOutTable.any(in: database)
            } else {
                try InterestFanOutTable.advance(step.fanOut, in: database)
                remaining = true
            }
            // The rows are this node's; what other nodes may take is the next step.
            if remaining { try OutboxTable.announce(in: database) }
            return FanOutProgress(claimed: claimed, remaining: remaining)
        }
    }

    public func fanOutsInProgress() throws -> Int {
        try withDatabase { try InterestFanOutTable.count(in: $0) }
    }

    public func nextDueAt() throws -> Int64? {
        try withDatabase { try OutboxTable.nextDueAt(in: $0) }
    }

    public func releaseClaims(heldBy node: String?) throws -> Int {
        let now = nowMilliseconds
        return try write { try OutboxTable.releaseClaims(heldBy: node, now: now, in: $0) }
    }

    public func claims() throws -> [OutboxClaim] {
        try withDatabase { try OutboxTable.claims(in: $0) }
    }

    public func pendingCount() throws -> Int {
        try withDatabase { try OutboxTable.pendingCount(in: $0) }
    }

    public func deadLetters(limit: Int) throws -> [OutboxDeadLetter] {
        try withDatabase { try OutboxTable.deadLetters(limit: limit, in: $0) }
    }

    public func retryDeadLetters() throws -> Int {
        let now = nowMilliseconds
        return try write { database in
            let revived = try OutboxTable.reviveDeadLetters(now: now, in: database)
            if revived > 0 { try OutboxTable.announce(in: database) }
            return revived
        }
    }

    public func deliveryLog(limit: Int) throws -> [DeliveryLogEntry] {
        try withDatabase { try DeliveryLogTable.recent(limit: limit, in: $0) }
    }

    public func trimDeliveryLog(keeping: Int) throws -> Int {
        var trimmed = 0
        while true {
            let batch = try lockingWrite { try DeliveryLogTable.trimBatch(keeping: keeping, in: $0) }
            trimmed += batch
            if batch < DeliveryLogTable.trimBatchSize { return trimmed }
        }
    }

    public func deleteUnusedPayloads() throws -> Int {
        try write { try OutboxPayloadTable.deleteAllUnused(in: $0) }
    }
}

extension DeliveryLogEntry.Kind {
    /// The device's last outcome (`device_outcomes`) for an outbox outcome (a pruned device
    /// has none left).
    func deviceSummary(_ detail: String?) -> String {
        switch self {
        case .delivered: return "delivered"
        case .retry: return "not delivered, retrying: \(detail ?? "")"
        case .dead: return "given up: \(detail ?? "")"
        case .pruned: return "dead token: \(detail ?? "")"
        case .kept: return "dead token before re-registration: \(detail ?? "")"
        }
    }
}
