/// A cospace user: logs in to `/api/push` with HTTP Basic; push events name it by `id`.
public struct CospaceUser: Sendable, Equatable {
    /// A UUID string, the `owner` of push events.
    public var id: String
    public var name: String
    /// `PushCrypto.PasswordHash` output, never the password.
    public var passwordHash: String

    public init(id: String, name: String, passwordHash: String) {
        self.id = id
        self.name = name
        self.passwordHash = passwordHash
    }
}

/// One APNs device token a cospace user registered, as `GET /api/push` lists it.
public struct CospaceAPNsToken: Sendable, Equatable {
    public var token: DeviceToken
    /// The APNs app the device belongs to, `team-id.bundle-id`.
    public var applicationID: String
    /// The device's own choice, else its app's default.
    public var sandbox: Bool
    /// Stored topic; nil when the device follows its bundle id.
    public var apnsTopic: String?

    public init(token: DeviceToken, applicationID: String, sandbox: Bool, apnsTopic: String?) {
        self.token = token
        self.applicationID = applicationID
        self.sandbox = sandbox
        self.apnsTopic = apnsTopic
    }
}

/// Everything a cospace user registered, for `GET /api/push`.
public struct CospaceRegistrations: Sendable, Equatable {
    /// FCM registration ids as the client sent them, oldest first.
    public var registrationIDs: [String]
    public var apnsTokens: [CospaceAPNsToken]

    public init(registrationIDs: [String] = [], apnsTokens: [CospaceAPNsToken] = []) {
        self.registrationIDs = registrationIDs
        self.apnsTokens = apnsTokens
    }
}

/// An APNs token to register, after its fields passed the document's rules.
public struct CospaceAPNsRegistration: Sendable, Equatable {
    public var token: DeviceToken
    public var reportedToken: String
    /// `team-id.bundle-id` as the client sent it.
    public var applicationID: String
    /// Nil: the app's default environment.
    public var sandbox: Bool?
    /// Always set: the client's topic, or the bundle-id part of the application id.
    public var apnsTopic: String

    public init(token: DeviceToken, reportedToken: String, applicationID: String, sandbox: Bool?, apnsTopic: String) {
        self.token = token
        self.reportedToken = reportedToken
        self.applicationID = applicationID
        self.sandbox = sandbox
        self.apnsTopic = apnsTopic
    }

    /// The ten-character team id before the first dot.
    public var teamID: String { String(applicationID.prefix { $0 != "." }) }
    /// What follows the team id and its dot.
    public var bundleID: String { String(applicationID.drop { $0 != "." }.dropFirst()) }
}

/// Users and the devices each registered through cospace `/api/push`.
public protocol CospaceUserStore: Sendable {
    /// Creates a user with a new UUID; returns it. Throws `CospaceUserError.duplicateName`.
    func addUser(name: String, passwordHash: String) throws -> CospaceUser
    func users() throws -> [CospaceUser]
    func user(named name: String) throws -> CospaceUser?
    func user(id: String) throws -> CospaceUser?
    /// False when there is no such user.
    func setPasswordHash(name: String, passwordHash: String) throws -> Bool
    /// Removes the user and its links; devices no other owner links to are deleted.
    func removeUser(name: String) throws -> Bool

    func registrations(userID: String) throws -> CospaceRegistrations
    /// In one transaction: finds the APNs app of `registration.applicationID` (an app of
    /// that id, or an APNs app with that team id and topic) and links its device to the user.
    /// False, storing nothing, when no such app is registered.
    func addAPNsToken(userID: String, _ registration: CospaceAPNsRegistration) throws -> Bool
    /// Links the device (`appID`, registration id) to the user.
    func addRegistrationID(userID: String, appID: AppID, registrationID: String) throws
    /// Unlinks every APNs device of the user with that token; true when one was linked.
    @discardableResult
    func removeAPNsToken(userID: String, token: DeviceToken) throws -> Bool
    @discardableResult
    func removeRegistrationID(userID: String, appID: AppID, registrationID: String) throws -> Bool
    /// The ids of every device of the user whose app is in `apps` (nil: every app), and how
    /// many devices were left out; nil when there is no such user.
    func deviceIDs(userID: String, within apps: Set<AppID>?) throws -> ScopedDevices?
}

public enum CospaceUserError: Error, Equatable, CustomStringConvertible {
    case duplicateName(String)

    public var description: String {
        switch self {
        case .duplicateName(let name): return "a user named \(name) already exists"
        }
    }
}
