import COpenSSL

/// HMAC-SHA-256 (RFC 2104): the MAC of Beams' HS256 tokens and the PRF of HKDF.
public enum HMACSHA256 {
    public static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // HMAC fails only when OpenSSL cannot allocate or lacks SHA-256, nothing a caller
        // could handle; a wrong MAC would silently refuse (or pass) every token and make every
        // Web Push message unreadable.
        guard HMAC(EVP_sha256(), key, Int32(key.count), message, message.count, &digest, &length) != nil, length == 32
        else { fatalError("HMAC-SHA-256 failed: \(OpenSSLErrorQueue.error("HMAC"))") }
        return digest
    }
}
