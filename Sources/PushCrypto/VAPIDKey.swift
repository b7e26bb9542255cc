import COpenSSL

/// A web app's VAPID key (RFC 8292): the EC P-256 private key whose ES256 tokens tell push
/// services which server sends, and whose public half browsers were given when they
/// subscribed (`applicationServerKey`). A push service refuses a push signed by any other key.
public struct VAPIDKey: JWTSigningKey, CustomStringConvertible {
    let key: EVPKey
    /// The public point, read once: every push's VAPID header and cache key name it.
    private let point: [UInt8]

    /// Loads a P-256 private key (PKCS#8 `PRIVATE KEY` PEM; SEC1 `EC PRIVATE KEY` too).
    public init(pem: String) throws(CryptoError) {
        let key = try PEMReader.privateKey(pem, expectedHeader: "-----BEGIN PRIVATE KEY-----")
        guard key.isA("EC") else { throw .wrongKeyType(found: key.typeName, expected: "EC") }
        guard key.isP256 else { throw .wrongCurve(found: key.curveName ?? "unknown", neededBy: "VAPID") }
        try self.init(key: key)
    }

    private init(key: EVPKey) throws(CryptoError) {
        self.key = key
        point = try P256Key.publicPoint(of: key)
    }

    /// A new key from OpenSSL's random generator.
    public static func generate() throws(CryptoError) -> VAPIDKey {
        try VAPIDKey(key: try P256Key.generate())
    }

    /// The private key as PKCS#8 PEM, the form `init(pem:)` reads and the store keeps.
    public func pem() throws(CryptoError) -> String {
        try MemoryBIO.text("PEM_write_bio_PrivateKey") {
            PEM_write_bio_PrivateKey($0, key.pointer, nil, nil, 0, nil, nil)
        }
    }

    /// The public key as an uncompressed point, `0x04 ‖ x ‖ y`: 65 bytes.
    public func publicKey() throws(CryptoError) -> [UInt8] {
        point
    }

    /// What browsers take as `applicationServerKey`, what Beams' web SDK fetches, and the `k`
    /// of the VAPID header: the uncompressed point in unpadded base64url.
    public func publicKeyBase64URL() throws(CryptoError) -> String {
        Base64URL.encode(try publicKey())
    }

    public var algorithm: JWTAlgorithm { .es256 }

    /// `r ‖ s`, 64 bytes, as JWS wants; OpenSSL's DER is converted.
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let der = try DigestSignature.sign(message, with: key)
        return try ECDSASignatureFormat.raw(fromDER: der)
    }

    public func publicKeyPEM() throws(CryptoError) -> String {
        try key.publicKeyPEM()
    }

    /// Never the key itself: descriptions reach logs.
    public var description: String { "VAPIDKey(EC P-256)" }
}
