/// How deep a JSON text nests arrays and objects, measured on the bytes before any parser sees
/// them. No dialect's document nests more than a few levels; a body nested thousands deep
/// only costs the recursive parser stack and time, so it is refused first.
public enum JSONNesting {
    /// The deepest nesting any request body may have (an object in an object is 2).
    public static let maximumDepth = 32

    /// True when `bytes` never opens more than `limit` arrays and objects at once. Brackets
    /// inside strings do not count; the text need not be valid JSON (the parser judges that).
    public static func isWithin(_ limit: Int, _ bytes: [UInt8]) -> Bool {
        var depth = 0
        return JSONStructure.forEachByte(of: bytes) { byte in
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                return depth <= limit
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                return true
            default:
                return true
            }
        }
    }
}
