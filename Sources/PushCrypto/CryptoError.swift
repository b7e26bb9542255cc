import Foundation

/// Why a key could not be loaded, or a JWT not be signed or read. Each case names the part that
/// failed, so that an operator who pasted the wrong file learns which file and why.
public enum CryptoError: Error, Equatable, Sendable {
    /// The text holds no PEM block at all; `expected` is the header that was looked for.
    case notPEM(expected: String)
    /// A PEM block of another kind (a certificate, a public key) where `expected` belongs.
    case unexpectedPEM(found: String, expected: String)
    /// The key is protected by a passphrase; pushgate has nowhere to keep one.
    case encryptedKey
    /// A key of another algorithm, e.g. `found: "RSA", expected: "EC"`.
    case wrongKeyType(found: String, expected: String)
    /// An EC key on another curve than P-256; `neededBy` names who insists (APNs, ES256).
    case wrongCurve(found: String, neededBy: String)
    /// An RSA key shorter than RFC 7518 §3.3 allows for RS256.
    case rsaKeyTooShort(bits: Int)
    /// A token that is not three base64url parts of JSON; the reason says which part.
    case malformedToken(String)
    /// An OpenSSL call failed; `details` is OpenSSL's error queue, readable.
    case openSSL(operation: String, details: String)
    /// A client certificate and a private key that do not belong together.
    case keyDoesNotMatchCertificate
    /// A client certificate past its end date (`notAfter`, as OpenSSL prints it).
    case certificateExpired(notAfter: String)
    /// A PKCS#12 file that could not be opened: wrong password, or not PKCS#12.
    case unreadablePKCS12(String)
    /// A public key in raw form (a Web Push subscription's `p256dh`) that is not a P-256 point.
    case invalidPublicKey(String)
    /// A raw private scalar that is not a P-256 private key.
    case invalidPrivateKey(String)
    /// A Web Push body that cannot be decrypted: malformed, or not for these keys.
    case undecryptable(String)
}

extension CryptoError: CustomStringConvertible, LocalizedError {
    public var description: String {
        switch self {
        case .notPEM(let expected):
            return "not PEM (expected \(expected))"
        case .unexpectedPEM(let found, let expected):
            return "PEM holds \(found), expected \(expected)"
        case .encryptedKey:
            return "encrypted keys are not supported (export the key without a passphrase)"
        case .wrongKeyType(let found, let expected):
            return "not an \(expected) key (found \(found))"
        case .wrongCurve(let found, let neededBy):
            return "EC key on curve \(found), \(neededBy) needs P-256 (prime256v1)"
        case .rsaKeyTooShort(let bits):
            return "RSA key of \(bits) bits, RS256 needs at least 2048"
        case .malformedToken(let reason):
            return "malformed JWT: \(reason)"
        case .openSSL(let operation, let details):
            return "\(operation) failed: \(details)"
        case .keyDoesNotMatchCertificate:
            return "the private key does not belong to the certificate"
        case .certificateExpired(let notAfter):
            return "the certificate expired on \(notAfter)"
        case .unreadablePKCS12(let reason):
            return "cannot open the PKCS#12 file: \(reason)"
        case .invalidPublicKey(let reason):
            return "invalid public key: \(reason)"
        case .invalidPrivateKey(let reason):
            return "invalid private key: \(reason)"
        case .undecryptable(let reason):
            return "cannot decrypt: \(reason)"
        }
    }

    public var errorDescription: String? { description }
}
