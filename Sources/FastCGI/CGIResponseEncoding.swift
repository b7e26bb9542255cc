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
        var text = "Status: \(response.status) \(Response.reasonPhrase(response.status))\r\n"
        for (name, value) in response.headers {
            let lowered = name.lowercased()
            // The edge owns framing: a handler's own length or status would contradict ours.
            if lowered == "content-length" || lowered == "status" || lowered == "transfer-encoding" { continue }
            text += "\(singleLine(name)): \(singleLine(value))\r\n"
        }
        text += "Content-Length: \(response.body.count)\r\n\r\n"
        return Array(text.utf8)
    }

    /// A CR or LF in a header would end it early and let the rest pose as headers or body.
    private static func singleLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) else { return text }
        return String(
            decoding: text.utf8.map { $0 == 13 || $0 == 10 || $0 == 0 ? UInt8(ascii: " ") : $0 },
            as: UTF8.self)
    }
}
