import PushCore

/// How many devices a notify names, bounded on the bytes before the body is parsed: a body of
/// a megabyte could name a hundred thousand tiny devices, and parsing it would build a value for
/// each before the count could be refused.
///
/// It counts the elements of every array that stands directly in an object inside the top-level
/// object (nesting depth 3: `{"notification": {"devices": [here]}}`). The spec puts no other
/// array there, and counting by depth rather than by key cannot be dodged by spelling the key
/// with escapes; arrays deeper down (an event's `content`) are not counted, so no message a
/// user sends can make its notify too large. The text need not be valid JSON: the parser
/// judges that afterwards.
enum MatrixDeviceList {
    private static let listDepth = 3

    /// True when no array at the devices' depth holds more than `limit` elements.
    static func isWithin(_ limit: Int, _ bytes: [UInt8]) -> Bool {
        var depth = 0
        // Whether the innermost open bracket at the devices' depth is an array, and what it holds.
        var inList = false
        var awaitingElement = false
        var count = 0
        return JSONStructure.forEachByte(of: bytes) { byte in
            switch byte {
            case 0x20, 0x0A, 0x0D, 0x09:
                return true
            case UInt8(ascii: ","):
                if inList && depth == listDepth { awaitingElement = true }
                return true
            default:
                break
            }
            if inList && depth == listDepth && awaitingElement && byte != UInt8(ascii: "]") {
                // The first byte of an element of the list: a scalar, a string's quote, a bracket.
                awaitingElement = false
                count += 1
                if count > limit { return false }
            }
            switch byte {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth == listDepth {
                    inList = byte == UInt8(ascii: "[")
                    awaitingElement = inList
                    count = 0
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if depth == listDepth { inList = false }
                depth -= 1
            default:
                break
            }
            return true
        }
    }
}
