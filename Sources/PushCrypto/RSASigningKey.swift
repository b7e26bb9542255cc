/// An RSA private key (PKCS#8 or PKCS#1 PEM) that signs RS256, as in a Google service account.
public struct RSASigningKey: JWTSigningKey, CustomStringConvertible {
    let key: EVPKey

    public init(pem: String) throws(CryptoError) {
        let key = try PEMReader.privateKey(
            pem, expectedHeader: "-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----")
        guard key.isA("RSA") else { throw .wrongKeyType(found: key.typeName, expected: "RSA") }
        // RFC 7518 §3.3: RS256 keys MUST be 2048 bits or larger.
        guard key.bits >= 2048 else { throw .rsaKeyTooShort(bits: key.bits) }
        self.key = key
    }

    public var algorithm: JWTAlgorithm { .rs256 }

    public var bits: Int { key.bits }

    /// RSASSA-PKCS1-v1_5 with SHA-256, OpenSSL's default padding for RSA.
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try DigestSignature.sign(message, with: key)
    }

    public func publicKeyPEM() throws(CryptoError) -> String {
        try key.publicKeyPEM()
    }

    /// Never the key itself: descriptions reach logs.
    public var description: String { "RSASigningKey(\(bits) bits)" }
}
