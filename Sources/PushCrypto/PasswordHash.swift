import COpenSSL
import PushCore

/// Passwords of cospace users as PBKDF2-HMAC-SHA256, stored in one self-describing string
/// `pbkdf2-sha256$<iterations>$<salt base64>$<hash base64>`, so that a later raise of the
/// iteration count leaves existing hashes verifiable.
public enum PasswordHash {
    /// OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256.
    public static let defaultIterations = 600_000
    static let scheme = "pbkdf2-sha256"
    static let saltLength = 16
    static let hashLength = 32
    /// Refuses stored strings that would make one verification run for minutes.
    static let maximumIterations = 10_000_000

    /// A fresh hash of `password` with a random salt.
    public static func make(password: String, iterations: Int = defaultIterations) throws(CryptoError) -> String {
        let salt = try SecureRandom.bytes(saltLength)
        let hash = try derive(password: password, salt: salt, iterations: iterations, length: hashLength)
        return "\(scheme)$\(iterations)$\(Base64.encode(salt))$\(Base64.encode(hash))"
    }

    /// True when `password` matches `stored`; false for a wrong password or an unreadable string.
    public static func verify(password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == scheme, let iterations = Int(parts[1]), iterations > 0,
            iterations <= maximumIterations, let salt = Base64.decode(parts[2]),
            let expected = Base64.decode(parts[3]), !expected.isEmpty,
            let actual = try? derive(password: password, salt: salt, iterations: iterations, length: expected.count)
        else { return false }
        return CRYPTO_memcmp(actual, expected, expected.count) == 0
    }

    /// PBKDF2-HMAC-SHA256 (RFC 8018) of the password's UTF-8.
    public static func derive(password: String, salt: [UInt8], iterations: Int, length: Int) throws(CryptoError)
        -> [UInt8]
    {
        let passwordBytes = Array(password.utf8)
        var output = [UInt8](repeating: 0, count: length)
        let status = passwordBytes.withUnsafeBufferPointer { passwordBuffer in
            passwordBuffer.withMemoryRebound(to: CChar.self) { chars in
                PKCS5_PBKDF2_HMAC(
                    chars.baseAddress, Int32(passwordBytes.count), salt, Int32(salt.count), Int32(iterations),
                    EVP_sha256(), Int32(length), &output)
            }
        }
        guard status == 1 else { throw OpenSSLErrorQueue.error("PKCS5_PBKDF2_HMAC") }
        return output
    }
}
