import COpenSSL

/// Converts ECDSA signatures between OpenSSL's DER `SEQUENCE { r, s }` and JWS's fixed-width
/// `r ‖ s` (RFC 7518 §3.4), each integer left-padded with zeros to the curve's byte size.
enum ECDSASignatureFormat {
    /// P-256: 32 bytes per integer.
    static let p256ComponentSize = 32

    static func raw(fromDER der: [UInt8], componentSize: Int = p256ComponentSize) throws(CryptoError) -> [UInt8] {
        OpenSSLErrorQueue.clear()
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = parsed else { throw OpenSSLErrorQueue.error("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var output = [UInt8](repeating: 0, count: componentSize * 2)
        let written = output.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, Int32(componentSize)) == Int32(componentSize)
                && BN_bn2binpad(s, base + componentSize, Int32(componentSize)) == Int32(componentSize)
        }
        guard written else { throw OpenSSLErrorQueue.error("BN_bn2binpad") }
        return output
    }

    /// nil when `raw` has the wrong length for the curve, which makes the signature invalid.
    static func der(fromRaw raw: [UInt8], componentSize: Int = p256ComponentSize) -> [UInt8]? {
        guard raw.count == componentSize * 2, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = BN_bin2bn(raw, Int32(componentSize), nil)
        let s = BN_bin2bn(Array(raw[componentSize...]), Int32(componentSize), nil)
        // ECDSA_SIG_set0 takes ownership of r and s only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var allocated: UnsafeMutablePointer<UInt8>?
        let length = i2d_ECDSA_SIG(signature, &allocated)
        guard length > 0, let allocated else { return nil }
        defer { pushgate_openssl_free(allocated) }
        return Array(UnsafeBufferPointer(start: allocated, count: Int(length)))
    }
}
