/// The store's SQL numbers its parameters SQLite's way (`?NNN`, or `?` for "one more than the
/// largest so far"); PostgreSQL's are `$NNN`. Rewritten once per statement, when prepared.
enum PostgreSQLPlaceholders {
    /// `sql` with PostgreSQL placeholders, and how many parameters it has (the largest number).
    /// Quoted strings, quoted identifiers and comments are copied as they are.
    static func translate(_ sql: String) -> (text: String, parameterCount: Int) {
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 8)
        var largest = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // Up to the closing quote; a doubled quote inside is two quotes, so the scan
                // simply closes and reopens on it.
                var end = index + 1
                while end < bytes.count, bytes[end] != byte { end += 1 }
                let stop = min(end + 1, bytes.count)
                output.append(contentsOf: bytes[index..<stop])
                index = stop
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                var end = index
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                output.append(contentsOf: bytes[index..<end])
                index = end
            case UInt8(ascii: "?"):
                var end = index + 1
                var number = 0
                while end < bytes.count, let digit = digit(bytes[end]) {
                    number = number * 10 + digit
                    end += 1
                }
                if end == index + 1 { number = largest + 1 }
                largest = max(largest, number)
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: String(number).utf8)
                index = end
            default:
                output.append(byte)
                index += 1
            }
        }
        return (String(decoding: output, as: UTF8.self), largest)
    }

    private static func digit(_ byte: UInt8) -> Int? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
    }
}
