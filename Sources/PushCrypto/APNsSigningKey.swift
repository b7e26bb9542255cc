/// An APNs token-auth key: the EC P-256 private key of an Apple `.p8` file, which signs ES256
/// provider tokens.
public struct APNsSigningKey: JWTSigningKey, CustomStringConvertible {
    let key: EVPKey

    /// Loads the `.p8` text (PKCS#8 PEM; a SEC1 `EC PRIVATE KEY` is accepted too).
    public init(pem: String) throws(CryptoError) {
        let key = try PEMReader.privateKey(pem, expectedHeader: "-----BEGIN PRIVATE KEY-----")
        guard key.isA("EC") else { throw .wrongKeyType(found: key.typeName, expected: "EC") }
        guard key.isP256 else { throw .wrongCurve(found: key.curveName ?? "unknown", neededBy: "APNs") }
        self.key = key
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
    public var description: String { "APNsSigningKey(EC P-256)" }
}
