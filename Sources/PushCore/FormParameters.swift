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
    /// Works on the UTF-8 bytes in place: splitting a `String` by `Character` costs grapheme
    /// breaking, and generic collection code over a copy of the bytes was half of this
    /// parser's time (it runs for every Token Reporter request). Inlinable, so that a caller
    /// in another module gets this part specialized for its String: unspecialized, it looked
    /// up generic metadata at run time on every call.
    @inlinable
    public static func parse(_ encoded: some StringProtocol) throws(ParseError) -> FormParameters {
        var text = String(encoded)
        return try text.withUTF8 { parse(utf8: $0) }.get()
    }

    @usableFromInline
    static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Result<FormParameters, ParseError> {
        var result = FormParameters()
        var start = 0
        while start < bytes.count {
            var end = start
            var equals: Int?
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") {
                if equals == nil && bytes[end] == UInt8(ascii: "=") { equals = end }
                end += 1
            }
            if end > start {
                let name = decodeComponent(bytes, start..<(equals ?? end), plusAsSpace: true)
                let value = equals.map { decodeComponent(bytes, ($0 + 1)..<end, plusAsSpace: true) } ?? .success("")
                switch (name, value) {
                case (.success(let name), .success(let value)): result.pairs.append((name, value))
                case (.failure(let error), _), (_, .failure(let error)): return .failure(error)
                }
            }
            start = end + 1
        }
        return .success(result)
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

    @inlinable
    public static func percentDecode(_ text: some StringProtocol, plusAsSpace: Bool) throws(ParseError) -> String {
        var text = String(text)
        return try text.withUTF8 { decodeComponent($0, 0..<$0.count, plusAsSpace: plusAsSpace) }.get()
    }

    @usableFromInline
    static func decodeComponent(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, plusAsSpace: Bool
    ) -> Result<String, ParseError> {
        let part = UnsafeBufferPointer(rebasing: bytes[range])
        var isPlain = true
        var isASCII = true
        for byte in part {
            if byte == UInt8(ascii: "%") || (plusAsSpace && byte == UInt8(ascii: "+")) {
                isPlain = false
                break
            }
            if byte >= 0x80 { isASCII = false }
        }
        if isPlain {
            // Plain ASCII, what reporter parameters almost always are, is valid UTF-8 as it
            // is: String(validating:) would look up generic metadata on every call.
            if isASCII { return .success(String(decoding: part, as: UTF8.self)) }
            guard let text = String(validating: part, as: UTF8.self) else {
                return .failure(.invalidUTF8(String(decoding: part, as: UTF8.self)))
            }
            return .success(text)
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(part.count)
        var index = 0
        while index < part.count {
            let byte = part[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < part.count, let high = Hex.value(ofDigit: part[index + 1]),
                    let low = Hex.value(ofDigit: part[index + 2])
                else {
                    return .failure(.badPercentEncoding(String(decoding: part, as: UTF8.self)))
                }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        guard let text = String(validating: decoded, as: UTF8.self) else {
            return .failure(.invalidUTF8(String(decoding: part, as: UTF8.self)))
        }
        return .success(text)
    }
}
