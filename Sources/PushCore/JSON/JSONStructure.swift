/// The bytes of a JSON text that make its structure: every byte outside its strings, and the
/// quote that opens each string (what is inside, escapes included, and the closing quote are
/// skipped). For the checks made on a body's bytes before any parser sees it: how deep it
/// nests (`JSONNesting`), how many elements a list holds. The text need not be valid JSON.
public enum JSONStructure {
    /// Calls `body` with each structural byte in order until it returns false; true when it
    /// never did.
    @inlinable
    public static func forEachByte(of bytes: [UInt8], _ body: (UInt8) -> Bool) -> Bool {
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            if byte == UInt8(ascii: "\"") { inString = true }
            guard body(byte) else { return false }
        }
        return true
    }
}
