import COpenSSL

/// Moves bytes in and out of OpenSSL memory BIOs, the way PEM text reaches OpenSSL.
enum MemoryBIO {
    /// What `read` makes of a BIO holding a copy of `text` (a key, a certificate); nil from it
    /// is the error `operation`. Copying (rather than `BIO_new_mem_buf`) frees the caller from
    /// keeping the Swift buffer alive and pinned.
    static func read<Value>(_ text: String, _ operation: String, by read: (OpaquePointer) -> Value?)
        throws(CryptoError) -> Value
    {
        OpenSSLErrorQueue.clear()
        let bytes = Array(text.utf8)
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLErrorQueue.error("BIO_new") }
        defer { BIO_free(bio) }
        guard bytes.isEmpty || BIO_write(bio, bytes, Int32(bytes.count)) == Int32(bytes.count) else {
            throw OpenSSLErrorQueue.error("BIO_write")
        }
        guard let value = read(bio) else { throw OpenSSLErrorQueue.error(operation) }
        return value
    }

    /// The text `write` puts into a new BIO (PEM, a printed time); a `write` that does not
    /// return 1 is the error `operation`.
    static func text(_ operation: String, writtenBy write: (OpaquePointer) -> Int32) throws(CryptoError) -> String {
        OpenSSLErrorQueue.clear()
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLErrorQueue.error("BIO_new") }
        defer { BIO_free(bio) }
        guard write(bio) == 1 else { throw OpenSSLErrorQueue.error(operation) }
        let pending = Int(BIO_ctrl_pending(bio))
        var buffer = [UInt8](repeating: 0, count: pending)
        guard pending == 0 || BIO_read(bio, &buffer, Int32(pending)) == Int32(pending) else {
            throw OpenSSLErrorQueue.error("BIO_read")
        }
        return String(decoding: buffer, as: UTF8.self)
    }
}
