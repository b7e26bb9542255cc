import COpenSSL

/// OpenSSL's per-thread error queue, read out as text for `CryptoError.openSSL`.
enum OpenSSLErrorQueue {
    /// Forgets errors left by earlier calls on this thread, so that a failure reports its own.
    static func clear() {
        ERR_clear_error()
    }

    /// Empties the queue and joins its entries, oldest first, e.g.
    /// `error:1E08010C:DECODER routines::unsupported`.
    static func drain() -> String {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no OpenSSL error reported" : messages.joined(separator: "; ")
    }

    static func error(_ operation: String) -> CryptoError {
        .openSSL(operation: operation, details: drain())
    }
}
