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
    /// breaking, and generic collection code over a copy of the bytes costs more than the
    /// parsing itself (it runs for every Token Reporter request). Inlinable, so that a caller
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
        // One allocation for the pairs of a usual request, not one per doubling.
        result.pairs.reserveCapacity(16)
        var start = 0
        while start < bytes.count {
            var end = start
            var equals: Int?
            // Whether the name, then the value, is plain ASCII (nothing to decode): learnt in
            // this one pass, so that plain parts are not scanned again.
            var namePlain = true
            var plain = true
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "&") { break }
                if byte == UInt8(ascii: "=") && equals == nil {
                    equals = end
                    namePlain = plain
                    plain = true
                } else if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") || byte >= 0x80 {
                    plain = false
                }
                end += 1
            }
            if equals == nil { namePlain = plain }
            if end > start {
                let nameRange = start..<(equals ?? end)
                let name = namePlain ? .success(ascii(bytes, nameRange)) : decodeComponent(bytes, nameRange, plusAsSpace: true)
                let value = equals.map { equals in
                    plain ? .success(ascii(bytes, (equals + 1)..<end)) : decodeComponent(bytes, (equals + 1)..<end, plusAsSpace: true)
                } ?? .success("")
                switch (name, value) {
                case (.success(let name), .success(let value)): result.pairs.append((name, value))
                case (.failure(let error), _), (_, .failure(let error)): return .failure(error)
                }
            }
            start = end + 1
        }
        return .success(result)
    }

    /// Bytes known to be ASCII without `%` or `+`: the text as it is.
    private static func ascii(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
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
        // Decoded is never longer than encoded. A temporary buffer (on the stack when small)
        // instead of an array: a token's trailing `%3D` brings every report here.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: part.count) { decoded in
            var count = 0
            var isASCII = true
            var index = 0
            while index < part.count {
                var byte = part[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < part.count, let high = Hex.value(ofDigit: part[index + 1]),
                        let low = Hex.value(ofDigit: part[index + 2])
                    else {
                        return .failure(.badPercentEncoding(String(decoding: part, as: UTF8.self)))
                    }
                    byte = high << 4 | low
                    index += 3
                } else {
                    if plusAsSpace && byte == UInt8(ascii: "+") { byte = UInt8(ascii: " ") }
                    index += 1
                }
                if byte >= 0x80 { isASCII = false }
                decoded[count] = byte
                count += 1
            }
            let text = UnsafeBufferPointer(rebasing: decoded[0..<count])
            if isASCII { return .success(String(decoding: text, as: UTF8.self)) }
            guard let valid = String(validating: text, as: UTF8.self) else {
                return .failure(.invalidUTF8(String(decoding: part, as: UTF8.self)))
            }
            return .success(valid)
        }
    }
}
