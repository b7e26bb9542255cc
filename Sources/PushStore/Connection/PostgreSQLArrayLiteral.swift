import PushCore

/// A PostgreSQL array in its text form (`{"a","b"}`), for passing a list as one parameter
/// bound as text and cast in the SQL (`?4::text[]`): every element quoted, with `"` and `\`
/// escaped, so that no value can end an element or the array early.
enum PostgreSQLArrayLiteral {
    static func text(_ values: [String]) -> String {
        "{" + values.map(quoted).joined(separator: ",") + "}"
    }

    /// Text that may be missing: nil is the array's unquoted NULL (a quoted "NULL" is text).
    static func text(_ values: [String?]) -> String {
        "{" + values.map { $0.map(quoted) ?? "NULL" }.joined(separator: ",") + "}"
    }

    /// Whole numbers, for `?3::bigint[]` or `?4::int[]`.
    static func integers(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }

    /// Byte strings in bytea's hex form (`\x0a0b`), for `?6::bytea[]`.
    static func bytea(_ values: [[UInt8]]) -> String {
        text(values.map { "\\x" + Hex.encode($0) })
    }

    private static func quoted(_ value: String) -> String {
        var quoted = "\""
        for character in value.unicodeScalars {
            if character == "\"" || character == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(character)
        }
        return quoted + "\""
    }
}
