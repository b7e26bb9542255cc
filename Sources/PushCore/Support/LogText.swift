/// Text from callers made safe for a one-line log: control characters (a newline that would
/// forge a log line of its own, an escape sequence for the operator's terminal) are written as
/// `\xNN`.
public enum LogText {
    /// `bytes` with every byte below 0x20 and 0x7F escaped; the same bytes when there is none.
    public static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(where: needsEscape) else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        bytes.withUnsafeBufferPointer { appendEscaping($0, to: &output) }
        return output
    }

    public static func escaped(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let escapedBytes = escaped(bytes)
        return escapedBytes.count == bytes.count ? text : String(decoding: escapedBytes, as: UTF8.self)
    }

    /// Appends `text` escaped to a line being built, without a copy of its own on the way: at
    /// `debug` a log line is built for every request.
    public static func append(_ text: String, to output: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendEscaping($0, to: &output) }
    }

    private static func appendEscaping(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        guard bytes.contains(where: needsEscape) else {
            output.append(contentsOf: bytes)
            return
        }
        for byte in bytes {
            if needsEscape(byte) {
                output += [UInt8(ascii: "\\"), UInt8(ascii: "x")]
                output += [Hex.digits[Int(byte >> 4)], Hex.digits[Int(byte & 0x0F)]]
            } else {
                output.append(byte)
            }
        }
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F
    }
}
