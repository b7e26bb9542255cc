import COpenSSL

/// Moves bytes in and out of OpenSSL memory BIOs, the way PEM text reaches OpenSSL.
enum MemoryBIO {
    /// A BIO holding a copy of `text`; the caller frees it with `BIO_free`. Copying (rather than
    /// `BIO_new_mem_buf`) frees the caller from keeping the Swift buffer alive and pinned.
    static func make(copying text: String) throws(CryptoError) -> OpaquePointer {
        let bytes = Array(text.utf8)
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLErrorQueue.error("BIO_new") }
        guard bytes.isEmpty || BIO_write(bio, bytes, Int32(bytes.count)) == Int32(bytes.count) else {
            BIO_free(bio)
            throw OpenSSLErrorQueue.error("BIO_write")
        }
        return bio
    }

    static func readAll(_ bio: OpaquePointer) throws(CryptoError) -> String {
        let pending = Int(BIO_ctrl_pending(bio))
        var buffer = [UInt8](repeating: 0, count: pending)
        guard pending == 0 || BIO_read(bio, &buffer, Int32(pending)) == Int32(pending) else {
            throw OpenSSLErrorQueue.error("BIO_read")
        }
        return String(decoding: buffer, as: UTF8.self)
    }
}
