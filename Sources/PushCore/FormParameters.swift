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
    /// Works on the UTF-8 bytes: splitting a `String` by `Character` costs grapheme breaking,
    /// and this runs for every Token Reporter request.
    public static func parse(_ encoded: some StringProtocol) throws(ParseError) -> FormParameters {
        var result = FormParameters()
        let bytes = Array(encoded.utf8)
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") { end += 1 }
            if end > start {
                let segment = bytes[start..<end]
                if let equals = segment.firstIndex(of: UInt8(ascii: "=")) {
                    result.pairs.append((
                        try decodeComponent(segment[..<equals], plusAsSpace: true),
                        try decodeComponent(segment[(equals + 1)...], plusAsSpace: true)
                    ))
                } else {
                    result.pairs.append((try decodeComponent(segment, plusAsSpace: true), ""))
                }
            }
            start = end + 1
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
        try decodeComponent(Array(text.utf8)[...], plusAsSpace: plusAsSpace)
    }

    private static func decodeComponent(_ utf8: ArraySlice<UInt8>, plusAsSpace: Bool) throws(ParseError) -> String {
        if !utf8.contains(UInt8(ascii: "%")) && !(plusAsSpace && utf8.contains(UInt8(ascii: "+"))) {
            // Plain ASCII, what reporter parameters almost always are, needs no validation
            // (measured at half the cost of validating it).
            if utf8.allSatisfy({ $0 < 0x80 }) { return String(decoding: utf8, as: UTF8.self) }
            guard let text = String(validating: utf8, as: UTF8.self) else {
                throw .invalidUTF8(String(decoding: utf8, as: UTF8.self))
            }
            return text
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < utf8.endIndex, let high = hexDigit(utf8[index + 1]), let low = hexDigit(utf8[index + 2]) else {
                    throw .badPercentEncoding(String(decoding: utf8, as: UTF8.self))
                }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw .invalidUTF8(String(decoding: utf8, as: UTF8.self))
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
