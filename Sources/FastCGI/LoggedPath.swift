/// A request path as the request log shows it: never a whole device token, Beams client id or
/// password. The path is cut at its first `&` (the Token Reporter's path style carries
/// `&appid=…&password=…` there), and its first segment longer than 16 characters (a token, a
/// client id, a selector) is cut to its first 8 with `…`, and what follows it dropped: a
/// base64 token may hold `/`, so its later parts would look like segments of their own. The
/// template's nginx access log applies the same rule to `$uri`.
enum LoggedPath {
    /// Longest segment shown whole: user names, prefixes and ids of our own are shorter.
    static let longestWholeSegment = 16
    /// What is kept of a longer segment, enough to tell two tokens apart in a log.
    static let keptCharacters = 8

    /// Split at the bytes `/` and `&` rather than by walking the whole path's grapheme
    /// clusters, which cost more than the rest of the log line together; a segment's length is
    /// counted in characters all the same (a byte is one only in ASCII).
    static func shown(_ path: String) -> String {
        var path = path
        return path.withUTF8 { bytes in
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count + 4)
            var segmentStart = 0
            // Appends the segment that ends at `end`; true when it was cut (the rest is dropped).
            func flush(to end: Int) -> Bool {
                defer { segmentStart = end + 1 }
                let segment = UnsafeBufferPointer(rebasing: bytes[segmentStart..<end])
                let text = segment.allSatisfy { $0 < 0x80 } ? nil : String(decoding: segment, as: UTF8.self)
                guard (text?.count ?? segment.count) > longestWholeSegment else {
                    output += segment
                    return false
                }
                output += text.map { Array($0.prefix(keptCharacters).utf8) } ?? Array(segment.prefix(keptCharacters))
                output += "…".utf8
                return true
            }
            for (index, byte) in bytes.enumerated() {
                if byte == UInt8(ascii: "&") {
                    if !flush(to: index) { output += "&…".utf8 }
                    return String(decoding: output, as: UTF8.self)
                }
                if byte == UInt8(ascii: "/") {
                    if flush(to: index) { return String(decoding: output, as: UTF8.self) }
                    output.append(byte)
                }
            }
            _ = flush(to: bytes.count)
            return String(decoding: output, as: UTF8.self)
        }
    }
}
