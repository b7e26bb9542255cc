import PushCore

// BridgeSubscriptionStore: the Diffusion push bridge's pnsub / pnunsub and topic fan-out.
extension SQLStore {
    public func subscribe(appID: AppID, token: DeviceToken, reportedToken: String, selector: String) throws -> Bool {
        let now = clock()
        return try write { database in
            let deviceID = try DeviceTable.upsert(
                appID: appID, token: token, reportedToken: reportedToken, now: now, in: database)
            return try BridgeSubscriptionTable.insert(
                deviceID: deviceID, selector: selector, limit: BridgeLimits.subscriptionsPerDevice, now: now,
                in: database)
        }
    }

    public func unsubscribe(appID: AppID, token: DeviceToken, selector: String) throws -> Bool {
        try write { database in
            guard
                let deviceID = try BridgeSubscriptionTable.delete(
                    appID: appID, token: token, selector: selector, in: database)
            else { return false }
            try DeviceTable.deleteOwnerless([deviceID], in: database)
            return true
        }
    }

    public func enqueueTopicPush(
        _ message: OutboxMessage, subscribedToAnyOf selectors: [String], within apps: Set<AppID>?
    ) throws -> ScopedFanOut {
        var platforms = Set<Platform>()
        if message.apns != nil { platforms.insert(.apns) }
        if message.fcm != nil { platforms.insert(.fcm) }
        let now = clock() * 1000
        // The selection and the queueing in one transaction: a device unsubscribing meanwhile
        // is either queued in full or not at all.
        return try write { database in
            let subscribers = try BridgeSubscriptionTable.subscribers(of: selectors, platforms: platforms, in: database)
            let reachable = apps.map { Set($0.map(\.rawValue)) }
            let deviceIDs = subscribers.filter { reachable?.contains($0.appID) ?? true }
            let leftOut = subscribers.count - deviceIDs.count
            guard !deviceIDs.isEmpty else { return ScopedFanOut(queued: 0, leftOut: leftOut) }
            let queued = try Self.enqueue(message, deviceIDs: deviceIDs.map(\.deviceID), now: now, in: database)
            return ScopedFanOut(queued: queued, leftOut: leftOut)
        }
    }
}
