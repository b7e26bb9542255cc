/// Unguessable ids (Beams client ids, publish ids) in UUID form, from random bytes handed in
/// (PushCrypto's `SecureRandom` in the app; PushAPI sees no crypto library).
public struct RandomIdentifier: Sendable {
    private let randomBytes: @Sendable (Int) throws -> [UInt8]

    public init(randomBytes: @escaping @Sendable (Int) throws -> [UInt8]) {
        self.randomBytes = randomBytes
    }

    /// A version-4 UUID string, lowercase.
    func uuid() throws -> String {
        var bytes = try randomBytes(16)
        guard bytes.count == 16 else { throw ShortRead(count: bytes.count) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    struct ShortRead: Error, CustomStringConvertible {
        let count: Int
        var description: String { "the random source gave \(count) bytes instead of 16" }
    }
}
