/// The name a client gives an app: Acrobits `AppId`, cospace `application_id`, and so on.
/// At most 200 characters of letters, digits, `.`, `_` and `-`.
public struct AppID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Inlinable, so that callers get it specialized for their string type; on the contiguous
    /// bytes, because walking a `UTF8View` byte by byte costs several times as much (every
    /// Token Reporter report reads two app ids).
    @inlinable
    public init?(_ text: some StringProtocol) {
        let utf8 = text.utf8
        let allowed =
            utf8.withContiguousStorageIfAvailable(AppID.isAllowed) ?? Array(utf8).withUnsafeBufferPointer(AppID.isAllowed)
        guard allowed else { return nil }
        rawValue = String(text)
    }

    public var description: String { rawValue }

    public static func < (lhs: AppID, rhs: AppID) -> Bool { lhs.rawValue < rhs.rawValue }

    @usableFromInline
    static func isAllowed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.count <= 200 && bytes.allSatisfy(isAllowed)
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

/// What pushgate signs upstream requests with, per app.
public enum AppCredentials: Sendable, Equatable {
    /// APNs token-based auth: the team id, the key id and the .p8 key (PEM, EC P-256).
    case apnsToken(teamID: String, keyID: String, privateKeyPEM: String)
    /// APNs certificate-based auth: client certificate and its key, both PEM.
    case apnsCertificate(certificatePEM: String, privateKeyPEM: String)
    /// A Google service account (its JSON file as given) and the project it sends for.
    case fcmServiceAccount(json: String, projectID: String)
    /// Web Push: the VAPID key (PEM, EC P-256) and the contact URL (`mailto:` or `https:`) its
    /// tokens name as `sub` (RFC 8292).
    case webPush(vapidPrivateKeyPEM: String, subject: String)

    public var platform: Platform {
        switch self {
        case .apnsToken, .apnsCertificate: return .apns
        case .fcmServiceAccount: return .fcm
        case .webPush: return .web
        }
    }
}

/// An app an operator registered: where its pushes go and how they are signed.
public struct RegisteredApp: Sendable, Equatable {
    public var id: AppID
    public var credentials: AppCredentials
    /// APNs topic: the bundle id with the suffix of `apnsPushType` (`APNsPushType.topic(bundleID:)`),
    /// or what the operator gave.
    public var apnsTopic: String?
    public var apnsPushType: APNsPushType?
    /// Whether devices of this app use the APNs sandbox unless they say otherwise.
    public var sandbox: Bool
    /// The Pusher Beams `app_key` clients of this app present.
    public var appKey: String?
    /// Whether Matrix homeservers may push to this app's devices (`apps add --matrix`). A
    /// homeserver's users choose their pushers' app_id, pushkey and payload and a notify carries
    /// no credential, so an app is closed to them until its operator opens it.
    public var openToMatrix: Bool

    public var platform: Platform { credentials.platform }

    public init(
        id: AppID, credentials: AppCredentials, apnsTopic: String? = nil, apnsPushType: APNsPushType? = nil,
        sandbox: Bool = false, appKey: String? = nil, openToMatrix: Bool = false
    ) {
        self.id = id
        self.credentials = credentials
        self.apnsTopic = apnsTopic
        self.apnsPushType = apnsPushType
        self.sandbox = sandbox
        self.appKey = appKey
        self.openToMatrix = openToMatrix
    }
}
