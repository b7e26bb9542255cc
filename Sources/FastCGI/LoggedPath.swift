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

    static func shown(_ path: String) -> String {
        // Nearly every path is ASCII, where a byte is a character: cut without walking
        // grapheme clusters, which costs more than the rest of the log line together.
        if let ascii = path.utf8.withContiguousStorageIfAvailable({ bytes in
            bytes.allSatisfy { $0 < 0x80 } ? shownASCII(bytes) : nil
        }), let ascii {
            return ascii
        }
        var output = ""
        var segment = ""
        func flush() -> Bool {
            defer { segment = "" }
            guard segment.count > longestWholeSegment else {
                output += segment
                return false
            }
            output += String(segment.prefix(keptCharacters)) + "…"
            return true
        }
        for character in path {
            if character == "&" {
                if !flush() { output += "&…" }
                return output
            }
            if character == "/" {
                if flush() { return output }
                output.append("/")
                continue
            }
            segment.append(character)
        }
        _ = flush()
        return output
    }

    private static func shownASCII(_ path: UnsafeBufferPointer<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(path.count + 4)
        var segmentStart = 0
        func flush(to end: Int) -> Bool {
            defer { segmentStart = end + 1 }
            let segment = UnsafeBufferPointer(rebasing: path[segmentStart..<end])
            guard segment.count > longestWholeSegment else {
                output += segment
                return false
            }
            output += segment.prefix(keptCharacters)
            output += "…".utf8
            return true
        }
        for (index, byte) in path.enumerated() {
            if byte == UInt8(ascii: "&") {
                if !flush(to: index) { output += "&…".utf8 }
                return String(decoding: output, as: UTF8.self)
            }
            if byte == UInt8(ascii: "/") {
                if flush(to: index) { return String(decoding: output, as: UTF8.self) }
                output.append(byte)
            }
        }
        _ = flush(to: path.count)
        return String(decoding: output, as: UTF8.self)
    }
}
