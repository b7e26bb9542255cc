import PushCrypto

/// A subscription the mock push service created, as a browser would hand it to the site: the
/// endpoint and the two keys. The mock keeps the private half to decrypt what arrives.
public struct MockWebPushSubscription: Sendable, Equatable {
    /// The last path segment of the endpoint: what faults and outcomes are keyed by.
    public let id: String
    public let endpoint: String
    /// The subscriber's public key, 65 bytes uncompressed.
    public let p256dh: [UInt8]
    public let auth: [UInt8]

    /// A subscription as read back from its JSON (a client of `pushgate-mock webpush`).
    public init(id: String, endpoint: String, p256dh: [UInt8], auth: [UInt8]) {
        self.id = id
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }

    /// The W3C `PushSubscription.toJSON()` shape, keys base64url without padding.
    public var json: String {
        #"{"endpoint":"\#(endpoint)","expirationTime":null,"keys":{"p256dh":"\#(Base64URL.encode(p256dh))","auth":"\#(Base64URL.encode(auth))"}}"#
    }
}

/// One message the mock accepted and decrypted.
public struct MockWebPushMessage: Sendable, Equatable {
    public let subscriptionID: String
    public let plaintext: [UInt8]
    public let ttl: Int
    public let urgency: String?
    public let topic: String?
    /// The VAPID `sub` claim of the sender.
    public let subject: String

    public var text: String { String(decoding: plaintext, as: UTF8.self) }
}
