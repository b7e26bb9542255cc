import PushCore

/// Turns a `Response` into the bytes a FastCGI responder writes to stdout: CGI headers, an
/// empty line, the body. Pure, so it is tested without libfcgi or nginx.
enum CGIResponseEncoding {
    /// The whole response; the server writes `head` and the body separately to spare a copy.
    static func bytes(_ response: Response) -> [UInt8] {
        head(response) + response.body
    }

    /// `Status: 200 OK`, the handler's headers, `Content-Length` (always, even 0: nginx then
    /// needs no chunked encoding and the client knows the body is complete), an empty line.
    /// No header is invented: a response without a content type goes out without one.
    static func head(_ response: Response) -> [UInt8] {
        var head: [UInt8] = []
        writeHead(response) { head.append(contentsOf: $0) }
        return head
    }

    /// The head in pieces, each handed to `put` where it already lies: the server copies them
    /// straight into libfcgi's stream buffer, rather than built as an array first (appended
    /// piece by piece, then copied again).
    static func writeHead(_ response: Response, _ put: (UnsafeBufferPointer<UInt8>) -> Void) {
        if (100...599).contains(response.status) {
            statusLines[response.status - 100].withUnsafeBufferPointer(put)
        } else {
            Array("Status: \(response.status) \(Response.reasonPhrase(response.status))\r\n".utf8)
                .withUnsafeBufferPointer(put)
        }
        for (name, value) in response.headers {
            var name = name
            var value = value
            name.withUTF8 { name in
                // The edge owns framing: a handler's own length or status would contradict ours.
                guard !isFraming(name) else { return }
                value.withUTF8 { value in
                    putSingleLine(name, put)
                    nameSeparator.withUnsafeBufferPointer(put)
                    putSingleLine(value, put)
                    lineEnd.withUnsafeBufferPointer(put)
                }
            }
        }
        contentLengthName.withUnsafeBufferPointer(put)
        putDecimal(response.body.count, put)
        endOfHead.withUnsafeBufferPointer(put)
    }

    /// A CR or LF in a header would end it early and let the rest pose as headers or body:
    /// each (and NUL) goes out as a space.
    private static func putSingleLine(_ text: UnsafeBufferPointer<UInt8>, _ put: (UnsafeBufferPointer<UInt8>) -> Void) {
        let breaksLine = { (byte: UInt8) in byte == 13 || byte == 10 || byte == 0 }
        guard text.contains(where: breaksLine) else { return put(text) }
        text.map { breaksLine($0) ? UInt8(ascii: " ") : $0 }.withUnsafeBufferPointer(put)
    }

    /// A length in decimal, made on the stack from its last digit back.
    private static func putDecimal(_ value: Int, _ put: (UnsafeBufferPointer<UInt8>) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = UInt64(max(0, value))
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            put(UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    private static let contentLengthName = Array("Content-Length: ".utf8)
    private static let endOfHead: [UInt8] = [13, 10, 13, 10]
    private static let nameSeparator = Array(": ".utf8)
    private static let lineEnd: [UInt8] = [13, 10]

    /// The status line of every status from 100 to 599 (at `status - 100`), made once rather
    /// than formatted for every response.
    private static let statusLines: [[UInt8]] = (100...599).map {
        Array("Status: \($0) \(Response.reasonPhrase($0))\r\n".utf8)
    }

    private static let framingNames = ["content-length", "status", "transfer-encoding"].map { Array($0.utf8) }

    /// `Content-Length`, `Status` or `Transfer-Encoding`, in any case, compared without making
    /// a lowercased copy of every header name.
    private static func isFraming(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        framingNames.contains { framing in
            framing.count == name.count
                && zip(framing, name).allSatisfy { lower, byte in
                    lower == (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte)
                }
        }
    }
}
