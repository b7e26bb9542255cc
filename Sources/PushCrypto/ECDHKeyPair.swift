import COpenSSL

/// A P-256 key pair for ECDH (RFC 8291 §3.1): the fresh sender key of each Web Push message,
/// and the subscriber's key in the mock push service that decrypts what it receives.
public struct ECDHKeyPair: Sendable, CustomStringConvertible {
    let key: EVPKey
    /// The public point, uncompressed (65 bytes): `as_public` or `ua_public` (`p256dh`).
    public let publicKey: [UInt8]

    public static func generate() throws(CryptoError) -> ECDHKeyPair {
        try ECDHKeyPair(key: P256Key.generate())
    }

    /// The key pair of a known 32-byte private scalar, as RFC 8291's example gives them.
    public init(privateKey scalar: [UInt8]) throws(CryptoError) {
        try self.init(key: P256Key.keyPair(privateScalar: scalar))
    }

    private init(key: EVPKey) throws(CryptoError) {
        self.key = key
        publicKey = try P256Key.publicPoint(of: key)
    }

    /// The ECDH shared secret with `peerPublicKey` (65-byte uncompressed point): the x
    /// coordinate of the product, 32 bytes.
    public func sharedSecret(with peerPublicKey: [UInt8]) throws(CryptoError) -> [UInt8] {
        let peer = try P256Key.publicKey(uncompressedPoint: peerPublicKey)
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw OpenSSLErrorQueue.error("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peer.pointer) == 1 else {
            throw OpenSSLErrorQueue.error("EVP_PKEY_derive_set_peer")
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1 else { throw OpenSSLErrorQueue.error("EVP_PKEY_derive") }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &secret, &length) == 1 else { throw OpenSSLErrorQueue.error("EVP_PKEY_derive") }
        return Array(secret.prefix(length))
    }

    /// Never the private key: descriptions reach logs.
    public var description: String { "ECDHKeyPair(P-256, public \(Base64URL.encode(publicKey)))" }
}
