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
