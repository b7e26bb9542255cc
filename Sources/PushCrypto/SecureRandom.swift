import COpenSSL

/// Unpredictable bytes from OpenSSL's CSPRNG, for keys, salts and ids.
public enum SecureRandom {
    public static func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw OpenSSLErrorQueue.error("RAND_bytes") }
        return bytes
    }
}
