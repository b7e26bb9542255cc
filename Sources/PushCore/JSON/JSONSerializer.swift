/// Writes a `JSONValue` as compact JSON with sorted keys, byte for byte what Foundation's
/// `JSONEncoder` wrote with `.sortedKeys` and `.withoutEscapingSlashes` (which pushgate used
/// before): every push payload is written here, and `JSONEncoder`'s generic `Encodable` machinery
/// cost a pnm2 send more than the rest of its payload building.
///
/// The same output means: keys in the order of their UTF-8 bytes; only `"`, `\` and the
/// control characters below U+0020 escaped (`\b`, `\f`, `\n`, `\r`, `\t` by name, the others as
/// `\u00XX` in lower-case hex); whole numbers below 10^15 as integers; other numbers as Swift
/// prints a `Double`, without a trailing `.0`.
enum JSONSerializer {
    /// A number JSON cannot write (infinite or NaN); `JSONEncoder` threw for it too.
    struct NotRepresentable: Error {}

    static func serialize(_ value: JSONValue) throws(NotRepresentable) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        try write(value, to: &output)
        return output
    }

    private static func write(_ value: JSONValue, to output: inout [UInt8]) throws(NotRepresentable) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let number):
            try write(number, to: &output)
        case .string(let text):
            write(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                try write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // The members themselves are sorted, not their keys: looking each value up again
            // by its key hashed every key a second time.
            for (index, member) in sortedMembers(members).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                try write(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Byte order of the keys' UTF-8, which is also their order by Unicode scalar values.
    private static func sortedMembers(_ members: [String: JSONValue]) -> [(key: String, value: JSONValue)] {
        if members.count < 2 { return Array(members) }
        return members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    private static func write(_ number: Double, to output: inout [UInt8]) throws(NotRepresentable) {
        guard number.isFinite else { throw NotRepresentable() }
        if let whole = JSONValue.integer(writing: number) {
            output.append(contentsOf: String(whole).utf8)
            return
        }
        var text = number.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        output.append(contentsOf: text.utf8)
    }

    private static func write(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs of bytes that need no escape are copied whole: a payload's strings rarely
            // hold any, and appending byte by byte checked the array's room for each.
            var runStart = 0
            for (index, byte) in bytes.enumerated()
            where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                writeEscaped(byte, to: &output)
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// `"`, `\` or a control character, as JSONEncoder escaped it.
    private static func writeEscaped(_ byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x08: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x0C: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x00..<0x20:
            output.append(contentsOf: "\\u00".utf8)
            output.append(hexDigits[Int(byte >> 4)])
            output.append(hexDigits[Int(byte & 0x0F)])
        default:
            output.append(byte)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
