/// The apps operators registered.
public protocol AppCatalog: Sendable {
    func app(id: AppID) throws -> RegisteredApp?
    /// The platform of a registered app, without loading its credentials.
    func platform(of id: AppID) throws -> Platform?
    func apps() throws -> [RegisteredApp]
    /// Registers `app`; with `replacing` an existing app of that id is updated, otherwise it is
    /// an error (`AppCatalogError.duplicateApp`). Devices already reported for this id take the
    /// app's platform. The app's Beams `appKey` puts it behind that Beams instance, beside at
    /// most one app of the other platform: a key already held by another app of the same
    /// platform is `AppCatalogError.appKeyTaken`, and nothing is written.
    func addApp(_ app: RegisteredApp, replacing: Bool) throws
    /// Removes the app; its devices stay (they are valid again if the app is added back).
    func removeApp(id: AppID) throws -> Bool
}

/// Which of an Acrobits account's two tokens a report or a push is about (iOS 13+ has two).
public enum AcrobitsChannel: String, Sendable, Codable, CaseIterable {
    /// Incoming calls (PushKit on iOS).
    case calls
    /// Everything else: messages, reprovisioning.
    case msgs
}

/// One token an Acrobits app reported for one channel of an account.
public struct ChannelToken: Sendable, Equatable {
    public var channel: AcrobitsChannel
    public var appID: AppID
    public var token: DeviceToken
    /// The token exactly as the client sent it, kept for operators.
    public var reportedToken: String

    public init(channel: AcrobitsChannel, appID: AppID, token: DeviceToken, reportedToken: String) {
        self.channel = channel
        self.appID = appID
        self.token = token
        self.reportedToken = reportedToken
    }
}

/// Acrobits accounts (selector + channel) and the device each one's pushes go to.
public protocol AcrobitsAccountStore: Sendable {
    /// In one transaction: links each channel of `selector` to its device (creating the device
    /// for (app, token) when new), replacing the channel's previous token. Devices no owner
    /// links to any more are deleted. A nil `username` keeps the one known before.
    func saveAccountTokens(selector: String, username: String?, tokens: [ChannelToken]) throws
    /// Forgets every token of `selector`; returns how many channel links were removed.
    func removeAccount(selector: String) throws -> Int
}

/// Who a stored device belongs to, in each dialect's terms.
public enum DeviceOwner: Sendable, Equatable {
    /// Token Reporter / pnm2: one channel of an account.
    case acrobitsAccount(selector: String, channel: AcrobitsChannel, username: String?)
    /// cospace `/api/push`: a user (id is the UUID push events name as `owner`).
    case cospaceUser(id: String, name: String)
    /// Pusher Beams: one client (app install) and the interests it subscribed, sorted.
    case beamsClient(id: String, interests: [String])
    /// Diffusion push bridge: one `pnsub` topic selector.
    case bridgeSubscription(selector: String)
}

/// A device as stored, with every owner linked to it.
public struct StoredDevice: Sendable, Equatable {
    public var id: Int64
    public var appID: AppID
    /// Nil while no app of that id is registered.
    public var platform: Platform?
    public var token: DeviceToken
    public var reportedToken: String
    /// Nil when the device follows its app's default.
    public var sandbox: Bool?
    public var createdAt: Int64
    public var updatedAt: Int64
    public var owners: [DeviceOwner]
    /// What the last delivery to it found ("delivered", "rejected (400): BadTopic", …), and
    /// when (unix seconds); nil before the first.
    public var lastOutcome: String?
    public var lastOutcomeAt: Int64?

    public init(
        id: Int64, appID: AppID, platform: Platform?, token: DeviceToken, reportedToken: String, sandbox: Bool?,
        createdAt: Int64, updatedAt: Int64, owners: [DeviceOwner], lastOutcome: String? = nil,
        lastOutcomeAt: Int64? = nil
    ) {
        self.lastOutcome = lastOutcome
        self.lastOutcomeAt = lastOutcomeAt
        self.id = id
        self.appID = appID
        self.platform = platform
        self.token = token
        self.reportedToken = reportedToken
        self.sandbox = sandbox
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.owners = owners
    }
}

/// Read access to every stored device, for operators.
public protocol DeviceInventory: Sendable {
    func devices() throws -> [StoredDevice]
}

/// The whole store as one dialect-neutral interface.
public typealias TokenStore = AppCatalog & AcrobitsAccountStore & DeviceInventory

/// Refusals of the app catalog that an operator must hear about.
public enum AppCatalogError: Error, Equatable, CustomStringConvertible {
    case duplicateApp(AppID)
    /// The Beams app key already serves an app of this platform (`holder`): a Beams instance
    /// has one APNs app and one FCM app at most.
    case appKeyTaken(appKey: String, platform: Platform, holder: AppID)

    public var description: String {
        switch self {
        case .duplicateApp(let id): return "an app with id \(id) is already registered (use --replace to update it)"
        case .appKeyTaken(let appKey, let platform, let holder):
            return "app key \(appKey) already has an \(platform.rawValue) app, \(holder): a Beams key serves "
                + "one APNs app and one FCM app at most (give this app another key, or first take the key "
                + "off \(holder) with apps add --replace)"
        }
    }
}
