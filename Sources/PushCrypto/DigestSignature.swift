import COpenSSL

/// SHA-256 sign and verify through `EVP_DigestSign*`, in the signature format OpenSSL uses
/// (DER for ECDSA, PKCS#1 v1.5 for RSA). A fresh `EVP_MD_CTX` per call keeps threads apart.
enum DigestSignature {
    static func sign(_ message: [UInt8], with key: EVPKey) throws(CryptoError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLErrorQueue.error("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else {
            throw OpenSSLErrorQueue.error("EVP_DigestSignInit")
        }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else {
            throw OpenSSLErrorQueue.error("EVP_DigestSign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            throw OpenSSLErrorQueue.error("EVP_DigestSign")
        }
        // The first call gives the maximum; a DER ECDSA signature is often shorter.
        signature.removeLast(signature.count - length)
        return signature
    }

    /// True only for a valid signature; a malformed one is as invalid as a wrong one.
    static func verify(_ signature: [UInt8], of message: [UInt8], with key: EVPKey) -> Bool {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1 else { return false }
        return EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
    }
}
