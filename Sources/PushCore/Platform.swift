/// The push service a device token belongs to. `gcm` tokens are FCM tokens: Google's legacy
/// GCM API is gone and they are delivered through FCM HTTP v1.
public enum Platform: String, Sendable, Codable, CaseIterable {
    case apns
    case fcm

    /// Parses the platform names the dialects use (`gcm` is an alias of `fcm`).
    public init?(dialectName: String) {
        switch dialectName {
        case "apns": self = .apns
        case "fcm", "gcm": self = .fcm
        default: return nil
        }
    }
}
