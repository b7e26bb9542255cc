import COpenSSL

/// Owns one `EVP_PKEY` and frees it. Sendable because OpenSSL 3 allows one key to be used for
/// signing and verifying from many threads at once, as long as each operation has its own
/// `EVP_MD_CTX` (which `DigestSignature` creates per call); the key is never mutated after load.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// OpenSSL's name for the key's algorithm: "EC", "RSA", "ED25519", "RSA-PSS", …
    var typeName: String {
        guard let name = EVP_PKEY_get0_type_name(pointer) else { return "unknown" }
        return String(cString: name)
    }

    func isA(_ name: String) -> Bool {
        EVP_PKEY_is_a(pointer, name) == 1
    }

    var bits: Int {
        Int(EVP_PKEY_get_bits(pointer))
    }

    /// The EC curve's short name ("prime256v1", "secp384r1"), nil for keys without a group.
    var curveName: String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, OSSL_PKEY_PARAM_GROUP_NAME, &buffer, buffer.count, &length) == 1
        else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// P-256 goes by two names in OpenSSL; both mean the curve ES256 and APNs require.
    var isP256: Bool {
        guard let curve = curveName else { return false }
        return curve == "prime256v1" || curve == "P-256"
    }

    /// The public half as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    func publicKeyPEM() throws(CryptoError) -> String {
        try MemoryBIO.text("PEM_write_bio_PUBKEY") { PEM_write_bio_PUBKEY($0, pointer) }
    }
}
