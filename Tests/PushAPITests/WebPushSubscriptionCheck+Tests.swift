import PushCore

extension WebPushSubscriptionCheck {
    /// The dialects' unit tests run without PushCrypto: the public push services, and any
    /// uncompressed point taken as one on the curve. The real check (OpenSSL's) is what `serve`
    /// uses; the integration tests prove it refuses points off the curve.
    static let forDialectTests = WebPushSubscriptionCheck(
        endpoints: .publicPushServices, isP256Point: { $0.count == 65 && $0.first == 0x04 })
}
