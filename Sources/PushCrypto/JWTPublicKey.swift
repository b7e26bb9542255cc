/// A public key that checks JWT signatures: EC P-256 for ES256 or RSA for RS256. Mock APNs and
/// FCM servers use it to accept only tokens signed by the key they were given.
public struct JWTPublicKey: Sendable {
    let key: EVPKey
    /// The one algorithm this key verifies; a token claiming another is refused, which closes
    /// the algorithm-confusion hole of trusting the token's own `alg`.
    public let algorithm: JWTAlgorithm

    /// Loads SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public init(pem: String) throws(CryptoError) {
        let key = try PEMReader.publicKey(pem)
        if key.isA("EC") {
            guard key.isP256 else { throw .wrongCurve(found: key.curveName ?? "unknown", neededBy: "ES256") }
            algorithm = .es256
        } else if key.isA("RSA") {
            guard key.bits >= 2048 else { throw .rsaKeyTooShort(bits: key.bits) }
            algorithm = .rs256
        } else {
            throw .wrongKeyType(found: key.typeName, expected: "EC P-256 or RSA")
        }
        self.key = key
    }

    /// Whether `signature` (as it appears in a JWS, decoded from base64url) signs `message`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        switch algorithm {
        case .es256:
            guard let der = ECDSASignatureFormat.der(fromRaw: signature) else { return false }
            return DigestSignature.verify(der, of: message, with: key)
        case .rs256:
            return DigestSignature.verify(signature, of: message, with: key)
        }
    }
}
