import PushCore

/// A device's pushkey read as its app's platform's token, as Sygnal's pushkins read it.
enum MatrixPushkey {
    /// - APNs: the token in base64, as the spec recommends and Element iOS sends it (Sygnal's
    ///   default, `convert_device_token_to_hex`), or in hex (Sygnal with that option off): a
    ///   pushkey of 64 or more hex digits is hex, a token in base64 never is (its 32 bytes are
    ///   44 characters).
    /// - FCM: the registration token as Firebase issued it.
    /// - Web Push: the subscription's `p256dh`, with `data.endpoint` and `data.auth`
    ///   (Sygnal's webpush pushkin); the token is the whole subscription.
    static func token(_ device: MatrixNotification.Device, platform: Platform) -> Result<DeviceToken, MatrixRejection> {
        let pushkey = device.pushkey
        switch platform {
        case .apns:
            let token = isHex(pushkey) ? DeviceToken.fromHex(pushkey) : DeviceToken.fromBase64(pushkey)
            guard let token, token.isPlausible(for: .apns) else {
                return .failure(.malformedPushkey("the pushkey is not an APNs device token in base64 or hex"))
            }
            return .success(token)
        case .fcm:
            guard let token = DeviceToken.fromFCMText(pushkey), token.isPlausible(for: .fcm) else {
                return .failure(.malformedPushkey("the pushkey is not an FCM registration token"))
            }
            return .success(token)
        case .web:
            return subscription(device).map(\.token)
        }
    }

    /// The push the pushkey addresses, to `app`, with no message yet. A Web Push one carries
    /// the subscription read here, so that nothing parses its token again.
    static func push(
        to device: MatrixNotification.Device, app: RegisteredApp
    ) -> Result<Notification, MatrixRejection> {
        app.platform == .web
            ? subscription(device).map { Notification(app: app, subscription: $0) }
            : token(device, platform: app.platform).map { Notification(app: app, token: $0) }
    }

    private static func subscription(
        _ device: MatrixNotification.Device
    ) -> Result<WebPushSubscription, MatrixRejection> {
        guard let endpointText = device.data?["endpoint"]?.stringValue,
            let authText = device.data?["auth"]?.stringValue
        else {
            return .failure(.malformedPushkey("a Web Push pusher needs data.endpoint and data.auth"))
        }
        guard let endpoint = WebPushEndpoint(endpointText) else {
            return .failure(.malformedPushkey("data.endpoint is not an https URL"))
        }
        guard let p256dh = Base64.decode(device.pushkey), let auth = Base64.decode(authText),
            let subscription = WebPushSubscription(endpoint: endpoint, p256dh: p256dh, auth: auth)
        else {
            return .failure(
                .malformedPushkey("the pushkey is not a subscription's p256dh key, or data.auth not its auth secret"))
        }
        return .success(subscription)
    }

    private static func isHex(_ text: String) -> Bool {
        text.utf8.count >= 64 && text.utf8.allSatisfy { Hex.value(ofDigit: $0) != nil }
    }
}
