import PushCore

/// The apps behind the bridge's two destination schemes: the document's URIs name a token but
/// no app, so the operator names one per platform (PUSHGATE_BRIDGE_APNS_APP / _FCM_APP).
public struct BridgeApps: Sendable, Equatable {
    /// The configuration keys, for the log line that tells an operator what to set.
    public static let apnsKey = "PUSHGATE_BRIDGE_APNS_APP"
    public static let fcmKey = "PUSHGATE_BRIDGE_FCM_APP"

    public var apns: String?
    public var fcm: String?

    /// Values as configured: an invalid app id is reported when a destination needs it.
    public init(apns: String?, fcm: String?) {
        self.apns = apns
        self.fcm = fcm
    }

    func configured(for platform: Platform) -> (value: String?, key: String) {
        switch platform {
        case .apns: return (apns, Self.apnsKey)
        case .fcm: return (fcm, Self.fcmKey)
        // The document's destination URIs are apns:// and gcm:// only: no destination is a web
        // subscription, so no setting names a web app.
        case .web: return (nil, "no bridge setting")
        }
    }
}
