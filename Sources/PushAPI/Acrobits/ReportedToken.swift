import PushCore

/// Reads a Token Reporter token value for the platform of its app. APNs tokens come as the
/// base64 of their bytes. FCM tokens come either base64-encoded or as Google issued them
/// (`<instance id>:APA91b…`, with `:`, `-` and `_`): both are stored as the token's text, so
/// the same token reported both ways is one device.
enum ReportedToken {
    /// The token, or nil when the value is no token of `platform` (of any platform while the
    /// app is not registered yet).
    static func token(_ text: some StringProtocol, platform: Platform?) -> DeviceToken? {
        let decoded = DeviceToken.fromBase64(text)
        switch platform {
        case .apns:
            return decoded.flatMap { $0.isPlausible(for: .apns) ? $0 : nil }
        case .fcm:
            // Base64 that decodes to token text was encoded by the app. A raw token is never
            // base64 (its ':' sees to that) or decodes to bytes that are no text.
            if let decoded, decoded.isPlausible(for: .fcm) { return decoded }
            return rawFCMToken(text)
        case .web:
            // A browser's subscription is the Token Reporter's to read and check
            // (WebPushSubscriptionCheck): its endpoint and keys decide, not its spelling.
            return nil
        case nil:
            // Not registered yet: the same, except that other base64 is kept as its bytes, as
            // an APNs token's are.
            if let decoded, decoded.isPlausible(for: .fcm) { return decoded }
            return rawFCMToken(text) ?? decoded
        }
    }

    /// What a refused value is not, for the 400's one line.
    static func refusal(for platform: Platform?) -> String {
        switch platform {
        case .apns: return "is not a base64-encoded APNs device token (32 bytes or more)"
        case .fcm: return "is not an FCM registration token (as issued, or base64-encoded)"
        case .web:
            return "is not a base64-encoded Web Push subscription (endpoint, keys.p256dh of 65 bytes, keys.auth of 16)"
        case nil: return "is not a base64-encoded push token nor an FCM registration token"
        }
    }

    /// An FCM token as Google issues it: letters, digits, `-`, `_` and the `:` between the
    /// instance id and the rest, or a legacy GCM token (`APA91b…`, no instance id). The
    /// alphabet keeps out base64 with `+`, `/` or `=`: an APNs token sent to an FCM app is
    /// refused, not stored as text FCM would refuse later.
    static func rawFCMToken(_ text: some StringProtocol) -> DeviceToken? {
        // On the contiguous bytes: a `UTF8View` walked byte by byte costs several times as much.
        let utf8 = text.utf8
        guard utf8.withContiguousStorageIfAvailable(hasRawTokenShape)
            ?? Array(utf8).withUnsafeBufferPointer(hasRawTokenShape),
            let token = DeviceToken.fromFCMText(text), token.isPlausible(for: .fcm)
        else { return nil }
        return token
    }

    private static func hasRawTokenShape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy(isRawTokenByte) && (bytes.contains(UInt8(ascii: ":")) || bytes.starts(with: "APA91b".utf8))
    }

    private static func isRawTokenByte(_ byte: UInt8) -> Bool {
        byte.isASCIIAlphanumeric || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
    }
}
