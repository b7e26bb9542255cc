/// A private key that produces JWS signatures: the bytes that follow the last `.` of a token,
/// before base64url.
public protocol JWTSigningKey: Sendable {
    var algorithm: JWTAlgorithm { get }
    /// Signs `message` (the JWS signing input, `header.claims`) with SHA-256.
    func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8]
    /// The public half, as SubjectPublicKeyInfo PEM, for whoever verifies.
    func publicKeyPEM() throws(CryptoError) -> String
}
