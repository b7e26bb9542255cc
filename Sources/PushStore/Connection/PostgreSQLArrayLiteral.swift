import PushCore

/// A PostgreSQL array in its text form (`{"a","b"}`), for passing a list as one parameter
/// bound as text and cast in the SQL (`?4::text[]`): every element quoted, with `"` and `\`
/// escaped, so that no value can end an element or the array early.
///
/// Written as UTF-8 bytes and made a `String` once: a report batch binds several of these, and
/// building them by appending strings showed up in serve's profile of every PostgreSQL report
/// (docs/performance.md has the measurement).
/// Escaping byte by byte is exact, since `"` and `\` never occur inside a multi-byte character.
enum PostgreSQLArrayLiteral {
    static func text(_ values: [String]) -> String {
        literal(values) { value, out in quote(value.utf8, into: &out) }
    }

    /// Text that may be missing: nil is the array's unquoted NULL (a quoted "NULL" is text).
    static func text(_ values: [String?]) -> String {
        literal(values) { value, out in
            if let value { quote(value.utf8, into: &out) } else { out.append(contentsOf: "NULL".utf8) }
        }
    }

    /// Whole numbers, for `?3::bigint[]` or `?4::int[]`.
    static func integers(_ values: [Int64]) -> String {
        literal(values) { value, out in out.append(contentsOf: String(value).utf8) }
    }

    /// Byte strings in bytea's hex form (`\x0a0b`), each quoted (so its `\` escaped), for
    /// `?6::bytea[]`.
    static func bytea(_ values: [[UInt8]]) -> String {
        literal(values) { value, out in
            out.append(contentsOf: #""\\x"#.utf8)
            for byte in value {
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    private static func literal<Element>(_ values: [Element], _ write: (Element, inout [UInt8]) -> Void) -> String {
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(2 + values.count * 40)
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            write(value, &out)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func quote(_ value: String.UTF8View, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)
}
