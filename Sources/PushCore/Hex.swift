/// Lowercase hexadecimal text of bytes: APNs device tokens, digests, UUIDs.
public enum Hex {
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let digits = Array("0123456789abcdef".utf8)
}
