import NIOCore

/// One HTTP request as a mock sees it, whichever HTTP version carried it: the mocks' logic is
/// written once against this, not against NIO's HTTP/1 and HTTP/2 types.
struct MockHTTPRequest: Sendable {
    var method: String
    /// The request target, query included (`/3/device/ab12…`).
    var path: String
    /// `:authority` in HTTP/2, `Host` in HTTP/1.1: what the client believes it called.
    var authority: String?
    var headers: MockHeaders
    var body: [UInt8] = []
    /// True when more body arrived than the server keeps (`body` is then cut short).
    var bodyTruncated = false
    var httpVersion: String
    var connection: ConnectionInfo

    /// Appends what of `buffer` fits under `limit` bytes of body, flagging the rest as cut.
    mutating func appendBody(_ buffer: inout ByteBuffer, limit: Int) {
        let room = limit - body.count
        if buffer.readableBytes > room { bodyTruncated = true }
        if room > 0, let bytes = buffer.readBytes(length: min(room, buffer.readableBytes)) {
            body.append(contentsOf: bytes)
        }
    }
}
