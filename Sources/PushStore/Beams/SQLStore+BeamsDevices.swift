import Foundation
import PushCore

// BeamsDeviceStore: the Beams device API's devices, interest sets and users.
extension SQLStore {
    public func registerBeamsDevice(
        newID: String, appID: AppID, token: DeviceToken, reportedToken: String, metadata: String?
    ) throws -> BeamsRegistration {
        let now = clock()
        return try write { database in
            let deviceID = try DeviceTable.upsert(
                appID: appID, token: token, reportedToken: reportedToken, now: now, in: database)
            // iOS registers on every launch: the install it was keeps its id and interests.
            if let known = try BeamsDeviceTable.client(appID: appID, deviceID: deviceID, in: database) {
                _ = try BeamsDeviceTable.touch(id: known, metadata: metadata, now: now, in: database)
                let interests = try BeamsDeviceTable.interests(
                    clientID: known, after: "", limit: BeamsLimits.interestsPerClient, in: database)
                return BeamsRegistration(id: known, interests: interests)
            }
            try BeamsClientTable.insert(id: newID, appID: appID, deviceID: deviceID, now: now, in: database)
            if metadata != nil { _ = try BeamsDeviceTable.touch(id: newID, metadata: metadata, now: now, in: database) }
            return BeamsRegistration(id: newID, interests: [])
        }
    }

    public func beamsDevice(id: String) throws -> BeamsDevice? {
        try read { database in
            guard let stored = try BeamsClientTable.client(id: id, in: database) else { return nil }
            let details = try BeamsDeviceTable.details(id: id, in: database)
            return BeamsDevice(client: stored.client, userID: details.userID, metadata: details.metadata)
        }
    }

    public func deleteBeamsDevice(id: String) throws -> Bool {
        try write { database in
            guard let deviceID = try BeamsDeviceTable.delete(id: id, in: database) else { return false }
            try DeviceTable.deleteOwnerless([deviceID], in: database)
            return true
        }
    }

    public func setBeamsDeviceMetadata(id: String, metadata: String) throws -> Bool {
        let now = clock()
        return try write { try BeamsDeviceTable.touch(id: id, metadata: metadata, now: now, in: $0) }
    }

    public func replaceBeamsInterests(clientID: String, interests: [String]) throws -> Bool {
        let now = clock()
        return try write { database in
            // The touch takes the client's row lock first, as a single subscribe does.
            guard try BeamsDeviceTable.touch(id: clientID, metadata: nil, now: now, in: database) else { return false }
            try BeamsDeviceTable.replaceInterests(clientID: clientID, with: interests, in: database)
            return true
        }
    }

    public func beamsInterests(clientID: String, after cursor: String?, limit: Int) throws -> [String]? {
        try read { database in
            guard try BeamsClientTable.client(id: clientID, in: database) != nil else { return nil }
            return try BeamsDeviceTable.interests(clientID: clientID, after: cursor ?? "", limit: limit, in: database)
        }
    }

    public func setBeamsUser(clientID: String, userID: String) throws -> BeamsUserChange {
        let now = clock()
        return try write { database in
            guard try BeamsDeviceTable.touch(id: clientID, metadata: nil, now: now, in: database),
                let stored = try BeamsClientTable.client(id: clientID, in: database)
            else { return .unknownDevice }
            switch try BeamsDeviceTable.details(id: clientID, in: database).userID {
            case userID?: return .done
            case _?: return .otherUser
            case nil: break
            }
            let bound = try BeamsDeviceTable.deviceCount(userID: userID, appID: stored.client.app.id, in: database)
            guard bound < BeamsLimits.devicesPerUser else { return .tooManyDevices }
            try BeamsDeviceTable.bindUser(clientID: clientID, userID: userID, now: now, in: database)
            return .done
        }
    }

    public func deleteBeamsUser(appIDs: [AppID], userID: String) throws -> Int {
        let appIDsJSON = String(decoding: try JSONEncoder().encode(appIDs.map(\.rawValue)), as: UTF8.self)
        return try write { database in
            let deviceIDs = try BeamsDeviceTable.deleteUser(userID, appIDsJSON: appIDsJSON, in: database)
            try DeviceTable.deleteOwnerless(deviceIDs, in: database)
            return deviceIDs.count
        }
    }

    public func publishToUsers(appIDs: [AppID], users: [String], message: OutboxMessage) throws -> Int {
        let usersJSON = String(decoding: try JSONEncoder().encode(users), as: UTF8.self)
        let appIDsJSON = String(decoding: try JSONEncoder().encode(appIDs.map(\.rawValue)), as: UTF8.self)
        let now = clock() * 1000
        return try write { database in
            try Self.enqueue(message, now: now, in: database) { payloadID in
                try BeamsDeviceTable.enqueueUserDevices(
                    appIDsJSON: appIDsJSON, usersJSON: usersJSON, payloadID: payloadID, now: now, in: database)
            }
        }
    }
}
