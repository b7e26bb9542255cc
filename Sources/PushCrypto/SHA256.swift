import COpenSSL
import PushCore

/// SHA-256 of bytes, through OpenSSL's one-shot digest.
public enum SHA256 {
    public static func hash(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let input = Array(bytes)
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // EVP_Digest fails only when OpenSSL cannot allocate or lacks SHA-256: nothing a
        // caller could handle, and a wrong digest would silently lock every sender out.
        guard EVP_Digest(input, input.count, &digest, &length, EVP_sha256(), nil) == 1, length == 32 else {
            fatalError("EVP_Digest(SHA-256) failed: \(OpenSSLErrorQueue.error("EVP_Digest"))")
        }
        return digest
    }

    /// Lowercase hex of the digest of `text`'s UTF-8.
    public static func hexDigest(of text: String) -> String {
        Hex.encode(hash(Array(text.utf8)))
    }
}
