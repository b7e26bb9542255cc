import Foundation

/// Any JSON document, for dialects whose bodies are loosely typed and must be checked field by
/// field to answer with the field that is wrong.
public enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if let whole = Self.integer(writing: value) {
                try container.encode(whole)
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The integer a number is written as, when it is whole and below 10^15 (a `Double` holds
    /// every such integer exactly); nil for a number written as a `Double`.
    static func integer(writing value: Double) -> Int64? {
        value.rounded() == value && abs(value) < 1e15 ? Int64(value) : nil
    }

    public enum ParseError: Error, Equatable {
        case invalidUTF8
        case malformed
        /// Arrays and objects nested deeper than `JSONNesting.maximumDepth`.
        case tooDeep
    }

    /// Parses a request body. Invalid UTF-8, and nesting deeper than
    /// `JSONNesting.maximumDepth`, are refused before the JSON parser sees the text.
    /// `maximumDepth`: what the store reads back was checked when it came in, and a stored
    /// document must never become unreadable, so the store passes `Int.max`.
    public static func parse(_ bytes: [UInt8], maximumDepth: Int = JSONNesting.maximumDepth) throws(ParseError)
        -> JSONValue
    {
        // Nearly every body is ASCII, valid as it is: told by one pass over the bytes instead
        // of making a `String` of them to validate.
        guard bytes.withUnsafeBufferPointer(\.isASCII) || String(validating: bytes, as: UTF8.self) != nil else {
            throw .invalidUTF8
        }
        guard JSONNesting.isWithin(maximumDepth, bytes) else { throw .tooDeep }
        do {
            return try JSONParser.parse(bytes)
        } catch {
            throw .malformed
        }
    }

    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// Compact JSON with sorted keys.
    public func encoded() -> [UInt8] {
        (try? JSONSerializer.serialize(self)) ?? Array("null".utf8)
    }
}
