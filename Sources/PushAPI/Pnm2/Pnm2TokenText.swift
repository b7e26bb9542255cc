import PushCore

/// Reads a pnm2 `DeviceToken` for the platform of its `AppId`: the base64 the Token Reporter
/// received (what SIPIS databases hold), or hex for APNs, or an FCM token as Google issued it.
enum Pnm2TokenText {
    /// Nil when `text` is no token of `platform`, or a Web Push subscription `subscriptions`
    /// refuses (`refusal` then says why). A Web Push token comes with the subscription it was
    /// read as, so that delivery does not read it again.
    static func token(
        _ text: String, platform: Platform, subscriptions: WebPushSubscriptionCheck
    ) -> (token: DeviceToken?, subscription: WebPushSubscription?, refusal: String?) {
        switch platform {
        case .apns:
            // Hex first: a 64-digit hex string is also valid base64, but means the hex bytes.
            if text.utf8.count >= 64, let token = DeviceToken.fromHex(text), token.isPlausible(for: .apns) {
                return (token, nil, nil)
            }
            return (DeviceToken.fromBase64(text).flatMap { $0.isPlausible(for: .apns) ? $0 : nil }, nil, nil)
        case .fcm:
            // FCM tokens carry a ':' and so are never base64; one that decodes to printable
            // token text was reported base64-encoded.
            if let token = DeviceToken.fromBase64(text), token.isPlausible(for: .fcm) { return (token, nil, nil) }
            return (DeviceToken.fromFCMText(text).flatMap { $0.isPlausible(for: .fcm) ? $0 : nil }, nil, nil)
        case .web:
            switch subscriptions.subscription(fromBase64: text) {
            case .success(let subscription): return (subscription.token, subscription, nil)
            case .failure(.notASubscription): return (nil, nil, nil)
            case .failure(.refused(let reason)): return (nil, nil, reason)
            }
        }
    }

    static func describe(_ platform: Platform) -> String {
        switch platform {
        case .apns: return "an APNs device token (hex or base64)"
        case .fcm: return "an FCM registration token (as issued, or base64)"
        case .web:
            return "a Web Push subscription (the base64 of its JSON: endpoint, keys.p256dh of 65 bytes, keys.auth of 16)"
        }
    }
}
