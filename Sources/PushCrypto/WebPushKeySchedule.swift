/// The keys of one Web Push message (RFC 8291 §3.3–3.4), each step kept so that tests can
/// compare every intermediate with the RFC's Appendix A.
public struct WebPushKeySchedule: Sendable, Equatable {
    public let ecdhSecret: [UInt8]
    /// "WebPush: info" ‖ 0x00 ‖ ua_public ‖ as_public.
    public let keyInfo: [UInt8]
    /// HKDF-Extract(auth, ecdh_secret).
    public let authPseudoRandomKey: [UInt8]
    /// HKDF-Expand(PRK_key, key_info, 32).
    public let inputKeyMaterial: [UInt8]
    /// HKDF-Extract(salt, IKM).
    public let pseudoRandomKey: [UInt8]
    /// The AES-128-GCM key.
    public let contentEncryptionKey: [UInt8]
    /// The AES-128-GCM nonce of the one record (sequence number 0, so no XOR).
    public let nonce: [UInt8]

    public static let contentEncryptionKeyInfo = Array("Content-Encoding: aes128gcm".utf8) + [0]
    public static let nonceInfo = Array("Content-Encoding: nonce".utf8) + [0]

    /// From either side: the sender passes its fresh key pair and the subscriber's `p256dh`;
    /// the subscriber passes its own key pair and the sender's key from the body's header.
    /// `senderPublicKey` and `receiverPublicKey` fix the order of `key_info` whoever computes.
    public init(
        ecdhSecret: [UInt8], senderPublicKey: [UInt8], receiverPublicKey: [UInt8], authSecret: [UInt8], salt: [UInt8]
    ) {
        self.ecdhSecret = ecdhSecret
        keyInfo = Array("WebPush: info".utf8) + [0] + receiverPublicKey + senderPublicKey
        authPseudoRandomKey = HKDF.extract(salt: authSecret, inputKeyMaterial: ecdhSecret)
        inputKeyMaterial = HKDF.expand(pseudoRandomKey: authPseudoRandomKey, info: keyInfo, length: 32)
        pseudoRandomKey = HKDF.extract(salt: salt, inputKeyMaterial: inputKeyMaterial)
        contentEncryptionKey = HKDF.expand(pseudoRandomKey: pseudoRandomKey, info: Self.contentEncryptionKeyInfo, length: 16)
        nonce = HKDF.expand(pseudoRandomKey: pseudoRandomKey, info: Self.nonceInfo, length: 12)
    }
}
