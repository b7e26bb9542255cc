import PushCore

/// A bridge destination URI: `apns://` and the base64 of an APNs device token, or `gcm://`
/// and an FCM registration token (GCM tokens are FCM tokens).
struct BridgeDestination: Equatable {
    let platform: Platform
    let token: DeviceToken

    init(_ uri: String) throws(BridgeError) {
        if let encoded = Self.remainder(of: uri, scheme: "apns://") {
            guard let token = DeviceToken.fromBase64(encoded), token.isPlausible(for: .apns) else {
                throw .invalidField("destination", "apns:// must be followed by the base64 of an APNs device token (32 bytes or more)")
            }
            self.platform = .apns
            self.token = token
        } else if let text = Self.remainder(of: uri, scheme: "gcm://") {
            guard let token = DeviceToken.fromFCMText(text), token.isPlausible(for: .fcm) else {
                throw .invalidField("destination", "gcm:// must be followed by an FCM registration token (printable text, no spaces)")
            }
            self.platform = .fcm
            self.token = token
        } else {
            throw .invalidField("destination", "must be an apns:// or gcm:// URI")
        }
    }

    /// The text after `scheme`, whose letters may come in any case (URI schemes do).
    private static func remainder(of uri: String, scheme: String) -> Substring? {
        guard uri.utf8.count > scheme.utf8.count, uri.prefix(scheme.count).lowercased() == scheme else { return nil }
        return uri.dropFirst(scheme.count)
    }
}
