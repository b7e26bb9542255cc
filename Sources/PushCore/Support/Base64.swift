/// Base64 as phones really send it: standard or URL-safe alphabet, padding optional, and a
/// space read as `+` (an unencoded `+` in a query string arrives as a space).
public enum Base64 {
    /// Inlinable, so that it is specialized for the caller's string type (see `AppID.init`).
    @inlinable
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode(utf8: $0) }
    }

    /// Each byte's sextet; 64 marks padding, 255 anything that is not base64.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 255, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = UInt8(index)
        }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: " "))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        table[Int(UInt8(ascii: "="))] = 64
        return table
    }()

    @usableFromInline
    static func decode(utf8: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        sextets.withUnsafeBufferPointer { decode(utf8: utf8, sextets: $0) }
    }

    /// The table is a global: read through its accessor for every byte, it cost more than
    /// the decoding. The bytes are written into an array of the most they can be, not appended
    /// one by one: every report decodes two tokens, and each append checked the array's
    /// capacity and uniqueness again.
    private static func decode(utf8: UnsafeBufferPointer<UInt8>, sextets: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var valid = true
        let output = [UInt8](unsafeUninitializedCapacity: utf8.count * 3 / 4) { buffer, count in
            // Whole quads of plain sextets, three bytes at a time: all of a token but its end.
            var index = 0
            while index + 4 <= utf8.count {
                let a = UInt32(sextets[Int(utf8[index])]), b = UInt32(sextets[Int(utf8[index + 1])])
                let c = UInt32(sextets[Int(utf8[index + 2])]), d = UInt32(sextets[Int(utf8[index + 3])])
                // Padding (64) and anything not base64 (255) are left to the loop below.
                guard (a | b | c | d) < 64 else { break }
                let triple = a << 18 | b << 12 | c << 6 | d
                buffer[count] = UInt8(truncatingIfNeeded: triple >> 16)
                buffer[count + 1] = UInt8(truncatingIfNeeded: triple >> 8)
                buffer[count + 2] = UInt8(truncatingIfNeeded: triple)
                count += 3
                index += 4
            }
            var accumulator: UInt32 = 0
            var bits = 0
            var padding = 0
            for byte in UnsafeBufferPointer(rebasing: utf8[index...]) {
                let value = sextets[Int(byte)]
                if value == 255 {
                    valid = false
                    break
                }
                if value == 64 {
                    padding += 1
                    continue
                }
                // Data after padding is not base64.
                if padding > 0 {
                    valid = false
                    break
                }
                accumulator = (accumulator << 6) | UInt32(value)
                bits += 6
                if bits >= 8 {
                    bits -= 8
                    buffer[count] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                    count += 1
                }
            }
            // A lone trailing sextet cannot encode a byte; more than two pad characters is malformed.
            if bits >= 6 || padding > 2 { valid = false }
        }
        return valid ? output : nil
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index])
            let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let triple = (b0 << 16) | (b1 << 8) | b2
            output.append(alphabet[Int((triple >> 18) & 63)])
            output.append(alphabet[Int((triple >> 12) & 63)])
            output.append(index + 1 < bytes.count ? alphabet[Int((triple >> 6) & 63)] : UInt8(ascii: "="))
            output.append(index + 2 < bytes.count ? alphabet[Int(triple & 63)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The URL-safe alphabet without padding (RFC 4648 §5), as Web Push writes keys.
    public static func encodeURLSafe(_ bytes: [UInt8]) -> String {
        var text = encode(bytes)
        while text.hasSuffix("=") { text.removeLast() }
        return String(text.map { $0 == "+" ? "-" : $0 == "/" ? "_" : $0 })
    }
}
