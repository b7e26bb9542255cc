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
        head.reserveCapacity(128)
        if (100...599).contains(response.status) {
            head += statusLines[response.status - 100]
        } else {
            head += Array("Status: \(response.status) \(Response.reasonPhrase(response.status))\r\n".utf8)
        }
        // On each text's contiguous bytes: appended through its `UTF8View`, byte by byte, the
        // head of a `/healthz` answer cost a tenth of the request's instructions.
        for (name, value) in response.headers {
            var name = name
            var value = value
            name.withUTF8 { name in
                // The edge owns framing: a handler's own length or status would contradict ours.
                guard !isFraming(name) else { return }
                value.withUTF8 { value in
                    appendSingleLine(name, to: &head)
                    head.append(UInt8(ascii: ":"))
                    head.append(UInt8(ascii: " "))
                    appendSingleLine(value, to: &head)
                    head.append(13)
                    head.append(10)
                }
            }
        }
        head += contentLengthName
        var length = String(response.body.count)
        length.withUTF8 { head.append(contentsOf: $0) }
        head += endOfHead
        return head
    }

    private static let contentLengthName = Array("Content-Length: ".utf8)
    private static let endOfHead: [UInt8] = [13, 10, 13, 10]

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

    /// A CR or LF in a header would end it early and let the rest pose as headers or body:
    /// each (and NUL) goes out as a space.
    private static func appendSingleLine(_ text: UnsafeBufferPointer<UInt8>, to head: inout [UInt8]) {
        guard text.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else {
            return head.append(contentsOf: text)
        }
        head.append(contentsOf: text.lazy.map { $0 == 13 || $0 == 10 || $0 == 0 ? UInt8(ascii: " ") : $0 })
    }
}
