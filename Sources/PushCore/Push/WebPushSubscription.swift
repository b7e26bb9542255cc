/// A browser's push subscription (the W3C Push API's `PushSubscription`): where to POST
/// pushes, and the keys each push is encrypted to (RFC 8291).
public struct WebPushSubscription: Hashable, Sendable {
    public let endpoint: WebPushEndpoint
    /// The browser's ECDH public key: an uncompressed P-256 point, 65 bytes, `0x04 ‖ x ‖ y`.
    public let p256dh: [UInt8]
    /// The shared authentication secret, 16 bytes.
    public let auth: [UInt8]

    public init?(endpoint: WebPushEndpoint, p256dh: [UInt8], auth: [UInt8]) {
        guard p256dh.count == 65, p256dh.first == 0x04, auth.count == Self.authLength else { return nil }
        self.endpoint = endpoint
        self.p256dh = p256dh
        self.auth = auth
    }

    /// Reads the subscription's JSON, `{"endpoint": …, "expirationTime": …, "keys": {"p256dh":
    /// …, "auth": …}}`, as `PushSubscription.toJSON()` writes it. Other members are ignored.
    public static func parse(json bytes: [UInt8]) -> WebPushSubscription? {
        guard bytes.count <= maximumJSONLength, let value = try? JSONValue.parse(bytes, maximumDepth: 4),
            let object = value.objectValue,
            let endpointText = object["endpoint"]?.stringValue, let endpoint = WebPushEndpoint(endpointText),
            let keys = object["keys"]?.objectValue,
            let p256dhText = keys["p256dh"]?.stringValue, let authText = keys["auth"]?.stringValue,
            let p256dh = Base64.decode(p256dhText), let auth = Base64.decode(authText)
        else { return nil }
        return WebPushSubscription(endpoint: endpoint, p256dh: p256dh, auth: auth)
    }

    /// The Pusher Beams web SDK's device token: `btoa(JSON.stringify(subscription))`.
    public static func fromBeamsToken(_ text: some StringProtocol) -> WebPushSubscription? {
        guard text.utf8.count <= maximumJSONLength * 2, let bytes = Base64.decode(text) else { return nil }
        return parse(json: bytes)
    }

    /// The canonical device token: the subscription's JSON with its three fields in a fixed
    /// order and the keys in unpadded base64url, so that one subscription is one device however
    /// it was spelled.
    public var token: DeviceToken {
        DeviceToken(bytes: Array(canonicalJSON.utf8))
    }

    public init?(token: DeviceToken) {
        guard let parsed = Self.parse(json: token.bytes) else { return nil }
        self = parsed
    }

    /// `https://host[:port]` of the endpoint.
    public var origin: String { endpoint.origin }

    private var canonicalJSON: String {
        let endpointJSON = String(decoding: JSONValue.string(endpoint.url).encoded(), as: UTF8.self)
        return #"{"endpoint":\#(endpointJSON),"keys":{"p256dh":"\#(Base64.encodeURLSafe(p256dh))","auth":"\#(Base64.encodeURLSafe(auth))"}}"#
    }

    /// The length of `auth` (RFC 8291, section 3.2).
    public static let authLength = 16

    /// An endpoint of at most 1,024 characters and the keys fit in this with room to spare.
    static let maximumJSONLength = 2048
}
