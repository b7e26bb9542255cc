import COpenSSL

/// An application server's VAPID key (RFC 8292): an EC P-256 private key whose public half
/// browsers subscribe with (`applicationServerKey`) and push services check JWTs against.
public struct VAPIDKey: Sendable, CustomStringConvertible {
    let evpKey: EVPKey
    /// The private key as PKCS#8 PEM, what the apps table stores.
    public let pem: String
    /// The public point, uncompressed (65 bytes).
    public let publicKey: [UInt8]

    public static func generate() throws(CryptoError) -> VAPIDKey {
        let key = try P256Key.generate()
        OpenSSLErrorQueue.clear()
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLErrorQueue.error("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil) == 1 else {
            throw OpenSSLErrorQueue.error("PEM_write_bio_PrivateKey")
        }
        return try VAPIDKey(pem: MemoryBIO.readAll(bio))
    }

    /// Loads a P-256 private key PEM (PKCS#8, or SEC1 `EC PRIVATE KEY`).
    public init(pem: String) throws(CryptoError) {
        let key = try PEMReader.privateKey(pem, expectedHeader: "-----BEGIN PRIVATE KEY-----")
        guard key.isA("EC") else { throw .wrongKeyType(found: key.typeName, expected: "EC") }
        guard key.isP256 else { throw .wrongCurve(found: key.curveName ?? "unknown", neededBy: "VAPID") }
        evpKey = key
        self.pem = pem
        publicKey = try P256Key.publicPoint(of: key)
    }

    /// The public key as browsers take it (`applicationServerKey`) and as `k=` carries it.
    public var publicKeyBase64URL: String { Base64URL.encode(publicKey) }

    /// Never the private key: descriptions reach logs.
    public var description: String { "VAPIDKey(P-256, public \(publicKeyBase64URL))" }
}
