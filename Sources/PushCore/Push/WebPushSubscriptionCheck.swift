/// What a Web Push subscription must be before any dialect stores it or sends to it: its
/// endpoint one the allow-list lets pushgate reach, its `p256dh` a point on P-256 and its
/// `auth` 16 bytes. A subscription that fails is refused at registration (400), so that no
/// stored device names an internal address or keys no push can ever be encrypted to.
public struct WebPushSubscriptionCheck: Sendable {
    public let endpoints: WebPushEndpointPolicy
    private let isP256Point: @Sendable (_ uncompressed: [UInt8]) -> Bool

    /// - Parameter isP256Point: whether 65 bytes are an uncompressed point on P-256 (PushCrypto's
    ///   `P256PublicPoint.isValid`; PushCore has no elliptic-curve arithmetic of its own).
    public init(endpoints: WebPushEndpointPolicy, isP256Point: @escaping @Sendable (_ uncompressed: [UInt8]) -> Bool) {
        self.endpoints = endpoints
        self.isP256Point = isP256Point
    }

    /// Nil when `subscription` may be stored and pushed to; otherwise why not, in a sentence
    /// for the registrant.
    public func refusal(of subscription: WebPushSubscription) -> String? {
        if let refusal = endpoints.refusal(of: subscription.endpoint) { return refusal }
        // auth's 16 bytes and p256dh's 65 are WebPushSubscription's own rule: it holds no other.
        guard isP256Point(subscription.p256dh) else { return "keys.p256dh is not a point on P-256" }
        return nil
    }

    /// Reads the base64 of a subscription's JSON (`btoa(JSON.stringify(subscription))`, what the
    /// Beams web SDK, a browser softphone's Token Reporter call and pnm2 carry) and checks it.
    public func subscription(fromBase64 text: some StringProtocol) -> Result<WebPushSubscription, Refusal> {
        guard let subscription = WebPushSubscription.fromBeamsToken(text) else { return .failure(.notASubscription) }
        if let reason = refusal(of: subscription) { return .failure(.refused(reason)) }
        return .success(subscription)
    }

    /// Why a text is not a subscription pushgate keeps.
    public enum Refusal: Error, Equatable {
        /// Not the base64 of a subscription's JSON (endpoint, keys.p256dh of 65 bytes, keys.auth
        /// of 16).
        case notASubscription
        /// A subscription, refused for the reason given.
        case refused(String)
    }
}
