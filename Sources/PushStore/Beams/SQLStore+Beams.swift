import Foundation
import PushCore

// BeamsStore: Pusher Beams clients, interests and publishes.
extension SQLStore {
    public func beamsInstance(appKey: String) throws -> BeamsInstance? {
        try read { try BeamsInstanceTable.instance(appKey: appKey, in: $0) }
    }

    public func beamsClient(id: String) throws -> BeamsClient? {
        try read { try BeamsClientTable.client(id: id, in: $0)?.client }
    }

    public func addBeamsClient(id: String, appID: AppID, token: DeviceToken, reportedToken: String) throws {
        let now = clock()
        try write { database in
            let deviceID = try DeviceTable.upsert(
                appID: appID, token: token, reportedToken: reportedToken, now: now, in: database)
            try BeamsClientTable.insert(id: id, appID: appID, deviceID: deviceID, now: now, in: database)
        }
    }

    public func replaceBeamsClientToken(clientID: String, token: DeviceToken, reportedToken: String) throws -> Bool {
        let now = clock()
        return try write { database in
            guard let stored = try BeamsClientTable.client(id: clientID, in: database) else { return false }
            // The new token may already be a device of the app (another client, another
            // dialect): the client joins that row, and its old row goes if nobody owns it.
            let deviceID = try DeviceTable.upsert(
                appID: stored.client.app.id, token: token, reportedToken: reportedToken, now: now, in: database)
            try BeamsClientTable.move(id: clientID, toDevice: deviceID, now: now, in: database)
            if deviceID != stored.deviceID {
                try DeviceTable.deleteOwnerless([stored.deviceID], in: database)
            }
            return true
        }
    }

    public func setBeamsInterest(clientID: String, appKey: String, interest: String, subscribed: Bool) throws
        -> BeamsInterestChange
    {
        try write { database in
            guard let stored = try BeamsClientTable.client(id: clientID, in: database) else { return .unknownClient }
            guard stored.client.app.appKey == appKey else { return .wrongAppKey }
            if subscribed {
                guard
                    try BeamsInterestTable.subscribe(
                        clientID: clientID, interest: interest, limit: BeamsLimits.interestsPerClient, in: database)
                else { return .tooManyInterests }
            } else {
                try BeamsInterestTable.unsubscribe(clientID: clientID, interest: interest, in: database)
            }
            return .done
        }
    }

    public func publishToInterests(appIDs: [AppID], interests: [String], message: OutboxMessage, firstStep: Int)
        throws -> QueuedFanOut
    {
        let appIDsJSON = String(decoding: try JSONEncoder().encode(appIDs.map(\.rawValue)), as: UTF8.self)
        let now = clock() * 1000
        // The payload, the first step and (when subscriptions are left) the fan-out's cursor in
        // one transaction: once the publish is answered, the rest is queued even if the process
        // dies. A client that subscribes or unsubscribes meanwhile gets the push or not.
        return try write { database in
            let payloadID = try OutboxPayloadTable.insert(message, now: now, in: database)
            let start = InterestFanOutTable.Row(
                payloadID: payloadID, appIDsJSON: appIDsJSON, interests: interests, interestIndex: 0, afterClient: "")
            let step = try InterestFanOut.step(start, budget: firstStep, now: now, in: database)
            if !step.finished {
                try InterestFanOutTable.insert(step.fanOut, now: now, in: database)
            } else if step.queued == 0 {
                try OutboxPayloadTable.delete(id: payloadID, in: database)
                return QueuedFanOut(queued: 0, continues: false)
            }
            try OutboxTable.announce(in: database)
            return QueuedFanOut(queued: step.queued, continues: !step.finished)
        }
    }
}
