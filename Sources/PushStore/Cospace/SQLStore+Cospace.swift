import Foundation
import PushCore

// CospaceUserStore: cospace users and the tokens they register through /api/push.
extension SQLStore {
    public func addUser(name: String, passwordHash: String) throws -> CospaceUser {
        let user = CospaceUser(id: UUID().uuidString.lowercased(), name: name, passwordHash: passwordHash)
        let now = clock()
        try write { database in
            if try UserTable.user(named: name, in: database) != nil { throw CospaceUserError.duplicateName(name) }
            try UserTable.insert(user, now: now, in: database)
        }
        return user
    }

    public func users() throws -> [CospaceUser] {
        try read { try UserTable.all(in: $0) }
    }

    public func user(named name: String) throws -> CospaceUser? {
        try withDatabase { try UserTable.user(named: name, in: $0) }
    }

    public func user(id: String) throws -> CospaceUser? {
        try withDatabase { try UserTable.user(id: id, in: $0) }
    }

    public func setPasswordHash(name: String, passwordHash: String) throws -> Bool {
        try write { try UserTable.setPasswordHash(name: name, passwordHash: passwordHash, in: $0) }
    }

    public func removeUser(name: String) throws -> Bool {
        try write { database in
            guard let user = try UserTable.user(named: name, in: database) else { return false }
            let deviceIDs = try UserDeviceTable.unlinkAll(userID: user.id, in: database)
            try UserTable.delete(id: user.id, in: database)
            try DeviceTable.deleteOwnerless(deviceIDs, in: database)
            return true
        }
    }

    public func registrations(userID: String) throws -> CospaceRegistrations {
        let links = try read { try UserDeviceTable.links(userID: userID, in: $0) }
        var registrations = CospaceRegistrations()
        for link in links {
            guard let topic = link.apnsTopic else {
                registrations.registrationIDs.append(link.reportedToken)
                continue
            }
            let applicationID = Self.cospaceApplicationID(link)
            let bundleID = String(applicationID.drop { $0 != "." }.dropFirst())
            registrations.apnsTokens.append(
                CospaceAPNsToken(
                    token: link.token, applicationID: applicationID, sandbox: link.sandbox ?? link.appSandbox ?? false,
                    apnsTopic: topic == bundleID ? nil : topic))
        }
        return registrations
    }

    /// The `team-id.bundle-id` a device's app stands for: its id when it has that form,
    /// otherwise the team id and topic it was found by.
    private static func cospaceApplicationID(_ link: UserDeviceTable.Link) -> String {
        let prefix = link.appID.prefix { $0 != "." }
        let hasTeamPrefix =
            prefix.utf8.count == 10 && link.appID.utf8.count > 11
            && prefix.utf8.allSatisfy {
                (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            }
        if !hasTeamPrefix, let team = link.appTeamID, let topic = link.appTopic { return "\(team).\(topic)" }
        return link.appID
    }

    public func addAPNsToken(userID: String, _ registration: CospaceAPNsRegistration) throws -> Bool {
        let now = clock()
        return try write { database in
            guard
                let appID = try UserDeviceTable.apnsApp(
                    applicationID: registration.applicationID, teamID: registration.teamID,
                    bundleID: registration.bundleID, in: database)
            else { return false }
            let deviceID = try DeviceTable.upsert(
                appID: appID, token: registration.token, reportedToken: registration.reportedToken, now: now,
                in: database)
            try UserDeviceTable.setAPNsSettings(
                deviceID: deviceID, sandbox: registration.sandbox, apnsTopic: registration.apnsTopic, in: database)
            try UserDeviceTable.link(userID: userID, deviceID: deviceID, in: database)
            // GET keys tokens by their hex: the same token moved to another app replaces the old link.
            let moved = try UserDeviceTable.unlinkAPNs(
                userID: userID, token: registration.token, keeping: deviceID, in: database)
            try DeviceTable.deleteOwnerless(moved, in: database)
            return true
        }
    }

    public func addRegistrationID(userID: String, appID: AppID, registrationID: String) throws {
        let now = clock()
        try write { database in
            let deviceID = try DeviceTable.upsert(
                appID: appID, token: DeviceToken(bytes: Array(registrationID.utf8)), reportedToken: registrationID,
                now: now, in: database)
            try UserDeviceTable.link(userID: userID, deviceID: deviceID, in: database)
        }
    }

    @discardableResult
    public func removeAPNsToken(userID: String, token: DeviceToken) throws -> Bool {
        try write { database in
            let removed = try UserDeviceTable.unlinkAPNs(userID: userID, token: token, keeping: nil, in: database)
            try DeviceTable.deleteOwnerless(removed, in: database)
            return !removed.isEmpty
        }
    }

    @discardableResult
    public func removeRegistrationID(userID: String, appID: AppID, registrationID: String) throws -> Bool {
        try write { database in
            let removed = try UserDeviceTable.unlink(
                userID: userID, appID: appID, token: DeviceToken(bytes: Array(registrationID.utf8)), in: database)
            try DeviceTable.deleteOwnerless(removed, in: database)
            return !removed.isEmpty
        }
    }

    public func deviceIDs(userID: String, within apps: Set<AppID>?) throws -> ScopedDevices? {
        try read { database in
            guard try UserTable.user(id: userID, in: database) != nil else { return nil }
            let devices = try UserDeviceTable.devices(userID: userID, in: database)
            let reachable = apps.map { Set($0.map(\.rawValue)) }
            let inScope = devices.filter { reachable?.contains($0.appID) ?? true }.map(\.id)
            return ScopedDevices(inScope: inScope, leftOut: devices.count - inScope.count)
        }
    }
}
