/// The push service a device token belongs to. `gcm` tokens are FCM tokens: Google's legacy
/// GCM API is gone and they are delivered through FCM HTTP v1. `web` is a browser's push
/// subscription, delivered through Web Push (RFC 8030) to whichever push service the browser
/// named in it.
public enum Platform: String, Sendable, Codable, CaseIterable {
    case apns
    case fcm
    case web

    /// How operators call the service behind the platform, in logs and messages.
    public var providerName: String {
        switch self {
        case .apns: return "APNs"
        case .fcm: return "FCM"
        case .web: return "Web Push"
        }
    }

    /// Parses the platform names the dialects use (`gcm` is an alias of `fcm`).
    public init?(dialectName: String) {
        switch dialectName {
        case "apns": self = .apns
        case "fcm", "gcm": self = .fcm
        case "web": self = .web
        default: return nil
        }
    }
}
