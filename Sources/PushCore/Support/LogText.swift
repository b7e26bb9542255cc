/// Text from callers made safe for a one-line log: control characters (a newline that would
/// forge a log line of its own, an escape sequence for the operator's terminal) are written as
/// `\xNN`.
public enum LogText {
    /// `bytes` with every byte below 0x20 and 0x7F escaped; the same bytes when there is none.
    public static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(where: needsEscape) else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        let hex = Array("0123456789abcdef".utf8)
        for byte in bytes {
            if needsEscape(byte) {
                output += [UInt8(ascii: "\\"), UInt8(ascii: "x"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            } else {
                output.append(byte)
            }
        }
        return output
    }

    public static func escaped(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let escapedBytes = escaped(bytes)
        return escapedBytes.count == bytes.count ? text : String(decoding: escapedBytes, as: UTF8.self)
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F
    }
}
