/// The `platform_type` a Pusher Beams client names: `gcm` is FCM's old name, delivered through FCM.
public enum BeamsPlatformType: String, Sendable, CaseIterable {
    case apns
    case fcm
    case gcm

    public var platform: Platform { self == .apns ? .apns : .fcm }
}

/// A registered app as Beams clients and publishers name it: by its `app_key`, which it may
/// share with one app of the other platform (see `BeamsInstance`).
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

/// A Pusher Beams instance: the apps behind one `app_key` (the publish API's instance id), at
/// most one per platform. The Beams iOS and Android SDKs start with the same instance id;
/// `apns` clients belong to its APNs app, `fcm`/`gcm` clients to its FCM app.
public struct BeamsInstance: Sendable, Equatable {
    public var appKey: String
    /// One or two apps, of different platforms, APNs first.
    public var apps: [BeamsApp]

    public init(appKey: String, apps: [BeamsApp]) {
        self.appKey = appKey
        self.apps = apps.sorted { $0.platform == .apns && $1.platform != .apns }
    }

    /// The app whose clients use `platform`, if the instance has one.
    public func app(for platform: Platform) -> BeamsApp? {
        apps.first { $0.platform == platform }
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
    /// A new interest for a client that has `BeamsLimits.interestsPerClient` already: refused,
    /// nothing stored.
    case tooManyInterests
}

/// What one unauthenticated Beams client may store: the client API needs no secret, so
/// without a bound one client could grow the store without end.
public enum BeamsLimits {
    /// Beams' own limit of interests per client (device).
    public static let interestsPerClient = 5_000
}

/// Pusher Beams clients, their interests, and publishing to interests through the outbox.
public protocol BeamsStore: Sendable {
    /// The apps behind a Beams `app_key`; nil when no app has that key.
    func beamsInstance(appKey: String) throws -> BeamsInstance?
    /// The client of that id, with its app.
    func beamsClient(id: String) throws -> BeamsClient?
    /// In one transaction: stores client `id` of `appID` pushing to the device (app, token),
    /// creating the device when new. The caller picks `appID` from the instance by the
    /// client's platform.
    func addBeamsClient(id: String, appID: AppID, token: DeviceToken, reportedToken: String) throws
    /// In one transaction: moves the client to the device of (its app, `token`) and deletes
    /// its old device if nothing else owns it. False when no such client exists.
    func replaceBeamsClientToken(clientID: String, token: DeviceToken, reportedToken: String) throws -> Bool
    /// Subscribes (or with `subscribed` false, unsubscribes) the client to `interest`, if
    /// `appKey` is its app's key (the key of the instance it registered under), and, for a
    /// new interest, if the client has fewer than `BeamsLimits.interestsPerClient`.
    func setBeamsInterest(clientID: String, appKey: String, interest: String, subscribed: Bool) throws
        -> BeamsInterestChange
    /// Queues `message` once for each device of the apps `appIDs` whose clients subscribed any
    /// of `interests` (a device is one app's, so a publish to an instance's APNs and FCM apps
    /// reaches each device once, in its platform's half of `message`). In one transaction it
    /// stores the publish and queues the first `firstStep` subscriptions; the outbox worker
    /// queues the rest (`OutboxStore.continueFanOuts`). Keeps no payload when no device
    /// matches.
    func publishToInterests(appIDs: [AppID], interests: [String], message: OutboxMessage, firstStep: Int) throws
        -> QueuedFanOut
}

extension BeamsStore {
    /// A publish that queues up to `FanOutStep.subscriptions` subscriptions itself.
    public func publishToInterests(appIDs: [AppID], interests: [String], message: OutboxMessage) throws
        -> QueuedFanOut
    {
        try publishToInterests(
            appIDs: appIDs, interests: interests, message: message, firstStep: FanOutStep.subscriptions)
    }
}
