/// RFC 8259 JSON text to `JSONValue`, byte by byte.
///
/// Why not `JSONDecoder`: decoding into `JSONValue` through `Codable` tries each type in
/// turn, and every miss throws and builds a `DecodingError` with its coding path: in a
/// profile of one pnm2 send per request it was a large share of serve's CPU, for bodies of a
/// few hundred bytes (docs/performance.md).
///
/// What it accepts is what `JSONDecoder` accepted for `JSONValue` (the tests hold the two
/// equal), so that no client that worked before is refused now: any value at the top,
/// surrounded by JSON's four whitespace bytes; numbers as JSON writes them, finite as a
/// `Double`; strings without raw control characters, with JSON's escapes and `\u` surrogate
/// pairs (a lone surrogate is refused). And `JSONDecoder`'s three leniencies: a leading
/// byte-order mark, a comma before `]` or `}`, and a key given twice keeping its first
/// value. The caller has checked UTF-8 and depth (`JSONValue.parse`), so a string's bytes
/// between escapes are copied as they are.
struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0

    struct Malformed: Error {}

    static func parse(_ bytes: [UInt8]) throws(Malformed) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw Malformed() }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: StaticString) throws(Malformed) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw Malformed() }
        let start = literal.utf8Start
        for offset in 0..<count where bytes[index + offset] != start[offset] { throw Malformed() }
        index += count
    }

    private mutating func value() throws(Malformed) -> JSONValue {
        guard let byte = current else { throw Malformed() }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw Malformed()
        }
    }

    /// The members are gathered in order first and hashed into a dictionary of their number
    /// once: inserted one by one, the dictionary grew four times for a pnm2 push's dozen
    /// members, hashing every key again each time.
    private mutating func object() throws(Malformed) -> JSONValue {
        var pairs: [(String, JSONValue)] = []
        try elements(closedBy: UInt8(ascii: "}")) { parser throws(Malformed) in
            guard parser.current == UInt8(ascii: "\"") else { throw Malformed() }
            let key = try parser.string()
            parser.skipWhitespace()
            guard parser.current == UInt8(ascii: ":") else { throw Malformed() }
            parser.index += 1
            parser.skipWhitespace()
            pairs.append((key, try parser.value()))
        }
        var members = [String: JSONValue](minimumCapacity: pairs.count)
        // A key given twice keeps its first value, as JSONDecoder did.
        members.merge(pairs) { first, _ in first }
        return .object(members)
    }

    private mutating func array() throws(Malformed) -> JSONValue {
        var elements: [JSONValue] = []
        try self.elements(closedBy: UInt8(ascii: "]")) { parser throws(Malformed) in
            elements.append(try parser.value())
        }
        return .array(elements)
    }

    /// From an opening bracket to its `closing` one: `element` reads each element, with
    /// commas between them (and one before the closing bracket, as JSONDecoder allowed).
    private mutating func elements(
        closedBy closing: UInt8, _ element: (inout JSONParser) throws(Malformed) -> Void
    ) throws(Malformed) {
        index += 1  // [ or {
        skipWhitespace()
        while current != closing {
            try element(&self)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case closing: break
            default: throw Malformed()
            }
        }
        index += 1
    }

    private mutating func string() throws(Malformed) -> String {
        index += 1  // "
        // Most strings have no escape: made straight from the body's bytes, with no copy
        // gathered first.
        let start = index
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 {
            index += 1
        }
        if current == UInt8(ascii: "\"") {
            let end = index
            index += 1
            return bytes.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[start..<end]), as: UTF8.self)
            }
        }
        var text: [UInt8] = []
        var runStart = start
        while true {
            guard let byte = current else { throw Malformed() }
            switch byte {
            case UInt8(ascii: "\""):
                text.append(contentsOf: bytes[runStart..<index])
                index += 1
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                text.append(contentsOf: bytes[runStart..<index])
                index += 1
                try escape(into: &text)
                runStart = index
            case 0x00..<0x20:
                throw Malformed()
            default:
                index += 1
            }
        }
    }

    /// After a backslash: appends the escaped character's UTF-8.
    private mutating func escape(into text: inout [UInt8]) throws(Malformed) {
        guard let byte = current else { throw Malformed() }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw Malformed() }
                index += 2
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw Malformed() }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw Malformed()
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw Malformed() }
            UTF8.encode(unicode) { text.append($0) }
        default:
            throw Malformed()
        }
    }

    private mutating func hex4() throws(Malformed) -> UInt16 {
        guard index + 4 <= bytes.count else { throw Malformed() }
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = Hex.value(ofDigit: bytes[index]) else { throw Malformed() }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, finite as a Double.
    private mutating func number() throws(Malformed) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw Malformed() }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let digit = current, isDigit(digit) else { throw Malformed() }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let digit = current, isDigit(digit) else { throw Malformed() }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else { throw Malformed() }
        return value
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func skipDigits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }
}
