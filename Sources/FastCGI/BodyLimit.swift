import PushCore

/// The largest body a handler is given: decided from `CONTENT_LENGTH` before reading, and by
/// counting while reading (a chunked upload has no length).
struct BodyLimit: Sendable, Equatable {
    let maxBytes: Int

    enum Verdict: Equatable {
        /// Read the body; `expected` is the declared length when there is a usable one.
        case read(expected: Int?)
        /// The declared length alone is over the limit.
        case tooLarge(declared: Int)
    }

    func verdict(contentLength: String?) -> Verdict {
        guard let contentLength, !contentLength.isEmpty else { return .read(expected: nil) }
        guard let declared = Int(contentLength), declared >= 0 else {
            // Not a length nginx would send; read and count instead of trusting it.
            return .read(expected: nil)
        }
        return declared > maxBytes ? .tooLarge(declared: declared) : .read(expected: declared)
    }

    func admits(_ bytes: Int) -> Bool { bytes <= maxBytes }
}
