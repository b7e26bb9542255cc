/// A Beams device as the device API sees it: a client (old API or new, one kind of row), the
/// user it is bound to, and the metadata its SDK last sent.
public struct BeamsDevice: Sendable, Equatable {
    public var client: BeamsClient
    public var userID: String?
    /// The SDK's metadata object as compact JSON; nil when none was sent.
    public var metadata: String?

    public init(client: BeamsClient, userID: String?, metadata: String?) {
        self.client = client
        self.userID = userID
        self.metadata = metadata
    }
}

/// What a device-API registration stored: the client id the SDK keeps, and the interests it
/// already has (a token registered before keeps its client, so a reinstall or a relaunch
/// resumes its subscriptions).
public struct BeamsRegistration: Sendable, Equatable {
    public var id: String
    public var interests: [String]

    public init(id: String, interests: [String]) {
        self.id = id
        self.interests = interests
    }
}

/// What became of binding a device to a user.
public enum BeamsUserChange: Sendable, Equatable {
    /// Bound, or already bound to that user.
    case done
    case unknownDevice
    /// The device is bound to another user: refused, as Beams does.
    case otherUser
    /// The user has `BeamsLimits.devicesPerUser` devices of this app already.
    case tooManyDevices
}

extension BeamsLimits {
    /// Beams' limit of devices per user (and platform: each app here is one platform).
    public static let devicesPerUser = 100
}

/// The Beams device API's storage: devices (clients) by id, their interests as a set, their
/// users; publishing to users through the outbox.
public protocol BeamsDeviceStore: Sendable {
    /// In one transaction: the client of (`appID`, `token`)'s device if one exists (the one
    /// updated last), with its interests; otherwise a new client `newID` on that device
    /// (created when new). `metadata` replaces the stored one when given.
    func registerBeamsDevice(
        newID: String, appID: AppID, token: DeviceToken, reportedToken: String, metadata: String?
    ) throws -> BeamsRegistration
    func beamsDevice(id: String) throws -> BeamsDevice?
    /// Removes the client (its interests cascade) and its device if nothing else owns it;
    /// false when there was no such client.
    func deleteBeamsDevice(id: String) throws -> Bool
    /// False when there is no such client.
    func setBeamsDeviceMetadata(id: String, metadata: String) throws -> Bool
    /// In one transaction: the client's interests become exactly `interests` (at most
    /// `BeamsLimits.interestsPerClient`, the caller's check). False when there is no such client.
    func replaceBeamsInterests(clientID: String, interests: [String]) throws -> Bool
    /// Up to `limit` of the client's interests in name order, after `cursor` (a name) when
    /// given; nil when there is no such client.
    func beamsInterests(clientID: String, after cursor: String?, limit: Int) throws -> [String]?
    /// Binds the client to `userID` unless it is bound to another user or the user has
    /// `BeamsLimits.devicesPerUser` devices of the client's app.
    func setBeamsUser(clientID: String, userID: String) throws -> BeamsUserChange
    /// Removes every client of the apps `appIDs` bound to `userID` (and devices nothing else
    /// owns); returns how many clients went.
    func deleteBeamsUser(appIDs: [AppID], userID: String) throws -> Int
    /// In one transaction: queues `message` once per device of the apps `appIDs` whose
    /// client is bound to any of `users`. Returns how many were queued.
    func publishToUsers(appIDs: [AppID], users: [String], message: OutboxMessage) throws -> Int
}
