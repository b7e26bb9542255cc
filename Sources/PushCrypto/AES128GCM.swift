import COpenSSL

/// AES-128-GCM with a 12-byte nonce and a 16-byte tag appended to the ciphertext, the cipher of
/// the `aes128gcm` content coding (RFC 8188 §2).
public enum AES128GCM {
    public static let tagLength = 16

    public static func seal(_ plaintext: [UInt8], key: [UInt8], nonce: [UInt8]) throws(CryptoError) -> [UInt8] {
        precondition(key.count == 16 && nonce.count == 12, "AES-128-GCM needs a 16-byte key and a 12-byte nonce")
        OpenSSLErrorQueue.clear()
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSLErrorQueue.error("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1 else {
            throw OpenSSLErrorQueue.error("EVP_EncryptInit_ex")
        }
        var output = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        var written: Int32 = 0
        guard EVP_EncryptUpdate(context, &output, &written, plaintext, Int32(plaintext.count)) == 1 else {
            throw OpenSSLErrorQueue.error("EVP_EncryptUpdate")
        }
        var final: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { buffer in
            EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(written), &final) == 1
                && EVP_CIPHER_CTX_ctrl(
                    context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), buffer.baseAddress! + Int(written + final)) == 1
        }
        guard finished else { throw OpenSSLErrorQueue.error("EVP_EncryptFinal_ex") }
        return Array(output.prefix(Int(written + final) + tagLength))
    }

    /// nil when the tag does not match: the wrong key, or bytes changed on the way.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8]) -> [UInt8]? {
        guard key.count == 16, nonce.count == 12, sealed.count >= tagLength else { return nil }
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        let ciphertext = Array(sealed.dropLast(tagLength))
        var tag = Array(sealed.suffix(tagLength))
        guard EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), nil, key, nonce) == 1 else { return nil }
        var output = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written: Int32 = 0
        guard EVP_DecryptUpdate(context, &output, &written, ciphertext, Int32(ciphertext.count)) == 1,
            EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), &tag) == 1
        else { return nil }
        var final: Int32 = 0
        let verified = output.withUnsafeMutableBufferPointer { buffer in
            EVP_DecryptFinal_ex(context, buffer.baseAddress! + Int(written), &final) == 1
        }
        return verified ? Array(output.prefix(Int(written + final))) : nil
    }
}
