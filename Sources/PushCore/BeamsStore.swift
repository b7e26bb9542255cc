/// The `platform_type` a Pusher Beams client names: `gcm` is FCM's old name, delivered through FCM.
public enum BeamsPlatformType: String, Sendable, CaseIterable {
    case apns
    case fcm
    case gcm

    public var platform: Platform { self == .apns ? .apns : .fcm }
}

/// A registered app as Beams clients and publishers name it: by its `app_key`.
public struct BeamsApp: Sendable, Equatable {
    public var id: AppID
    public var platform: Platform
    public var appKey: String

    public init(id: AppID, platform: Platform, appKey: String) {
        self.id = id
        self.platform = platform
        self.appKey = appKey
    }
}

/// A stored Beams client (one app install) and the app it registered with.
public struct BeamsClient: Sendable, Equatable {
    public var id: String
    public var app: BeamsApp

    public init(id: String, app: BeamsApp) {
        self.id = id
        self.app = app
    }
}

/// What became of a subscribe or unsubscribe.
public enum BeamsInterestChange: Sendable, Equatable {
    /// Done, or already so: both requests are idempotent.
    case done
    case unknownClient
    /// The client exists, but not within the app of the given `app_key`.
    case wrongAppKey
}

/// Pusher Beams clients, their interests, and publishing to interests through the outbox.
public protocol BeamsStore: Sendable {
    /// The app whose Beams `app_key` this is.
    func beamsApp(appKey: String) throws -> BeamsApp?
    /// The client of that id, with its app.
    func beamsClient(id: String) throws -> BeamsClient?
    /// In one transaction: stores client `id` of `appID` pushing to the device (app, token),
    /// creating the device when new.
    func addBeamsClient(id: String, appID: AppID, token: DeviceToken, reportedToken: String) throws
    /// In one transaction: moves the client to the device of (its app, `token`) and deletes
    /// its old device if nothing else owns it. False when no such client exists.
    func replaceBeamsClientToken(clientID: String, token: DeviceToken, reportedToken: String) throws -> Bool
    /// Subscribes (or with `subscribed` false, unsubscribes) the client to `interest`, if
    /// `appKey` is its app's key.
    func setBeamsInterest(clientID: String, appKey: String, interest: String, subscribed: Bool) throws
        -> BeamsInterestChange
    /// In one transaction: finds each device of `appID` whose clients subscribed any of
    /// `interests` and queues `message` once per device. Returns how many were queued.
    func publishToInterests(appID: AppID, interests: [String], message: OutboxMessage) throws -> Int
}
