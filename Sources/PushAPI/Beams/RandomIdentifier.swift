import PushCore

/// Unguessable ids (Beams client ids, publish ids) in UUID form, from random bytes handed in
/// (PushCrypto's `SecureRandom` in the app; PushAPI sees no crypto library).
public struct RandomIdentifier: Sendable {
    private let randomBytes: @Sendable (Int) throws -> [UInt8]

    public init(randomBytes: @escaping @Sendable (Int) throws -> [UInt8]) {
        self.randomBytes = randomBytes
    }

    /// Whether `text` could be an id this server issued (a UUID), kept loose: letters, digits
    /// and hyphens, 64 bytes at most. Anything else is an unknown client or device without a
    /// look at the store.
    static func couldBeIssued(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.utf8.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: "-") }
    }

    /// A version-4 UUID string, lowercase.
    func uuid() throws -> String {
        var bytes = try randomBytes(16)
        guard bytes.count == 16 else { throw ShortRead(count: bytes.count) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        // 8-4-4-4-12 hex digits.
        return [0..<4, 4..<6, 6..<8, 8..<10, 10..<16].map { Hex.encode(bytes[$0]) }.joined(separator: "-")
    }

    struct ShortRead: Error, CustomStringConvertible {
        let count: Int
        var description: String { "the random source gave \(count) bytes instead of 16" }
    }
}
