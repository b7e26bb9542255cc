import PushCore

/// Reads a pnm2 `DeviceToken` for the platform of its `AppId`: the base64 the Token Reporter
/// received (what SIPIS databases hold), or hex for APNs, or an FCM token as Google issued it.
enum Pnm2TokenText {
    static func token(_ text: String, platform: Platform) -> DeviceToken? {
        switch platform {
        case .apns:
            // Hex first: a 64-digit hex string is also valid base64, but means the hex bytes.
            if text.utf8.count >= 64, let token = DeviceToken.fromHex(text), token.isPlausible(for: .apns) {
                return token
            }
            if let token = DeviceToken.fromBase64(text), token.isPlausible(for: .apns) { return token }
            return nil
        case .fcm:
            // FCM tokens carry a ':' and so are never base64; one that decodes to printable
            // token text was reported base64-encoded.
            if let token = DeviceToken.fromBase64(text), token.isPlausible(for: .fcm) { return token }
            if let token = DeviceToken.fromFCMText(text), token.isPlausible(for: .fcm) { return token }
            return nil
        case .web:
            // The base64 of the subscription's JSON, as a browser softphone reported it.
            return WebPushSubscription.fromBeamsToken(text)?.token
        }
    }

    static func describe(_ platform: Platform) -> String {
        switch platform {
        case .apns: return "an APNs device token (hex or base64)"
        case .fcm: return "an FCM registration token (as issued, or base64)"
        case .web: return "a Web Push subscription (the base64 of its JSON)"
        }
    }
}
