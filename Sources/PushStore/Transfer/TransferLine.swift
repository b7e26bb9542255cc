import Foundation

/// One value of an export line: JSON's null, an integer or a string (bytes are base64 text).
enum TransferValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case text(String)
}

/// One line of an export: a JSON object whose `type` names what it is, and its fields in
/// the order they were written.
struct TransferLine: Equatable, Sendable {
    var type: String
    var fields: [(name: String, value: TransferValue)]

    static func == (lhs: TransferLine, rhs: TransferLine) -> Bool {
        lhs.type == rhs.type && lhs.fields.map(\.name) == rhs.fields.map(\.name)
            && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }

    /// The value of `name`, nil when the line has no such field.
    subscript(name: String) -> TransferValue? {
        fields.first { $0.name == name }?.value
    }

    /// The line as JSON text, `type` first, without a line break. Written by hand rather than
    /// with JSONSerialization: the order of the fields stays the table's, and a 100,000-device
    /// export spends its time in the database rather than in dictionaries.
    var json: String {
        var text = "{\"type\":"
        Self.appendString(type, to: &text)
        for (name, value) in fields {
            text += ","
            Self.appendString(name, to: &text)
            text += ":"
            switch value {
            case .null: text += "null"
            case .integer(let number): text += String(number)
            case .text(let string): Self.appendString(string, to: &text)
            }
        }
        text += "}"
        return text
    }

    private static func appendString(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20:
                text += "\\u00" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// Parses one line. Throws a `TransferError.malformed` without a line number (the reader
    /// adds it): not a JSON object, no string `type`, or a field that is not a string, an
    /// integer or null.
    init(json: Substring) throws(TransferError) {
        let object: [String: Scalar]
        do {
            object = try JSONDecoder().decode([String: Scalar].self, from: Data(json.utf8))
        } catch {
            throw .malformed(line: 0, "not a JSON object of strings, integers and nulls")
        }
        guard case .text(let type)? = object["type"].map(\.value) else {
            throw .malformed(line: 0, "no \"type\" string")
        }
        self.type = type
        // Sorted: a decoded dictionary has no order, and field checks name them in a stable one.
        fields = object.filter { $0.key != "type" }.map { ($0.key, $0.value.value) }.sorted { $0.name < $1.name }
    }

    init(type: String, fields: [(name: String, value: TransferValue)]) {
        self.type = type
        self.fields = fields
    }

    /// A JSON value an export may hold; anything else (a float, a boolean, an array) is refused.
    private struct Scalar: Decodable {
        let value: TransferValue

        init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                value = .null
            } else if let number = try? container.decode(Int64.self) {
                value = .integer(number)
            } else {
                value = .text(try container.decode(String.self))
            }
        }
    }
}
