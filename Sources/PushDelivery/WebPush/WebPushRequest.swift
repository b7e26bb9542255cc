import PushCore
import PushCrypto

/// Builds the RFC 8030 request for one Web Push message: the body encrypted for the
/// subscription (RFC 8291, fresh key and salt each time), `TTL`, `Urgency`, `Topic`, and the
/// VAPID `Authorization`.
enum WebPushRequest {
    static func make(
        endpoint: String, body: [UInt8], ttl: Int, urgency: String?, topic: String?, authorization: String,
        addressCheck: ConnectedAddressCheck?
    ) -> UpstreamRequest {
        var headers = [
            HTTPHeader("authorization", authorization),
            HTTPHeader("content-encoding", "aes128gcm"),
            HTTPHeader("content-type", "application/octet-stream"),
            // Autopush refuses a TTL beyond 30 days; a longer wish is the longest it keeps.
            HTTPHeader("ttl", String(min(max(0, ttl), WebPushMessage.maximumTTL))),
        ]
        if let urgency { headers.append(HTTPHeader("urgency", urgency)) }
        if let topic { headers.append(HTTPHeader("topic", topic)) }
        return UpstreamRequest(method: "POST", url: endpoint, headers: headers, body: body, addressCheck: addressCheck)
    }

    /// The encrypted body for the subscription's `p256dh` and `auth`.
    static func body(payload: [UInt8], p256dh: [UInt8], auth: [UInt8]) throws(CryptoError) -> [UInt8] {
        try WebPushEncryption.encrypt(payload, receiverPublicKey: p256dh, authSecret: auth)
    }
}
