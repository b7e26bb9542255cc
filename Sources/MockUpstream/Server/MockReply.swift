/// A complete HTTP response: status, headers and body.
struct MockHTTPResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)] = []
    var body: [UInt8] = []
}

/// What the transport does with a request once a mock has judged it.
enum MockReply: Sendable {
    /// Answer, after `delay` when one is given (a slow upstream).
    case respond(MockHTTPResponse, delay: Duration?)
    /// Close the TCP connection abruptly (RST), answering nothing: every stream on it is lost.
    case resetConnection
    /// HTTP/2: send GOAWAY naming the stream before this one as the last processed (so this
    /// request was not handled and may be retried), with `debugData` as its opaque data, then
    /// close. HTTP/1.1: answer 503 with `connection: close` and close.
    case goAway(debugData: [UInt8])
}
