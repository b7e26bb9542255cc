/// `application/x-www-form-urlencoded` pairs (also query strings), in order, decoded.
public struct FormParameters: Sendable, Equatable {
    public private(set) var pairs: [(name: String, value: String)]

    public init(pairs: [(name: String, value: String)] = []) {
        self.pairs = pairs
    }

    public static func == (lhs: FormParameters, rhs: FormParameters) -> Bool {
        lhs.pairs.map { [$0.name, $0.value] } == rhs.pairs.map { [$0.name, $0.value] }
    }

    public enum ParseError: Error, Equatable {
        /// A `%` not followed by two hex digits.
        case badPercentEncoding(String)
        /// The decoded bytes are not UTF-8.
        case invalidUTF8(String)
    }

    /// Parses `a=1&b=2`. Empty segments are skipped; a name without `=` has an empty value.
    public static func parse(_ encoded: some StringProtocol) throws(ParseError) -> FormParameters {
        var result = FormParameters()
        for segment in encoded.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = segment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = try percentDecode(parts[0], plusAsSpace: true)
            let value = parts.count > 1 ? try percentDecode(parts[1], plusAsSpace: true) : ""
            result.pairs.append((name, value))
        }
        return result
    }

    /// The last value given for `name` (later parameters override earlier ones).
    public subscript(name: String) -> String? {
        pairs.last { $0.name == name }?.value
    }

    public mutating func append(contentsOf other: FormParameters) {
        pairs.append(contentsOf: other.pairs)
    }

    public mutating func append(name: String, value: String) {
        pairs.append((name, value))
    }

    public static func percentDecode(_ text: some StringProtocol, plusAsSpace: Bool) throws(ParseError) -> String {
        let utf8 = Array(text.utf8)
        if !utf8.contains(UInt8(ascii: "%")) && !(plusAsSpace && utf8.contains(UInt8(ascii: "+"))) {
            return String(text)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let high = hexDigit(utf8[index + 1]), let low = hexDigit(utf8[index + 2]) else {
                    throw .badPercentEncoding(String(text))
                }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .invalidUTF8(String(text))
        }
        return decoded
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
