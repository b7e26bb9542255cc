/// An HTTP response as a handler produces it.
public struct Response: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Detail for the operator's log line (an underlying error), never sent to the client.
    public var logNote: String?
    /// Set when the answer comes later (see `ParkedResponse`); the fields above are then unused.
    public var parked: ParkedResponse?

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], logNote: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.logNote = logNote
    }

    public static func == (lhs: Response, rhs: Response) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body
            && lhs.headers.map { "\($0.name): \($0.value)" } == rhs.headers.map { "\($0.name): \($0.value)" }
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// 200 with no body and no content type: the simplest success a phone accepts.
    public static let emptyOK = Response(status: 200)

    /// A one-line plain-text message, newline-terminated.
    public static func text(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> Response {
        var body = Array(message.utf8)
        body.append(UInt8(ascii: "\n"))
        return Response(status: status, headers: headers.isEmpty ? plainText : plainText + headers, body: body)
    }

    /// The headers of a `text` response: one array for all of them, not one made per response.
    private static let plainText: [(name: String, value: String)] = [("Content-Type", "text/plain; charset=utf-8")]

    /// A fault on our side: the client learns only that, the log line gets the detail.
    public static func internalError(_ error: any Error) -> Response {
        Response(
            status: 500, headers: [("Content-Type", "text/plain; charset=utf-8")],
            body: Array("internal error\n".utf8), logNote: String(describing: error))
    }

    public static func json(_ status: Int, _ body: [UInt8], headers: [(name: String, value: String)] = []) -> Response {
        Response(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// The reason phrase of the CGI `Status:` line: every code of the IANA HTTP status code
    /// registry (RFC 9110 and its companions), with the names clients know for 413 and 422
    /// ("Payload Too Large", "Unprocessable Entity", as Beams titles its 422). A code outside
    /// the registry gets its class's name, never a made-up one.
    public static func reasonPhrase(_ status: Int) -> String {
        if let phrase = registeredReasonPhrases[status] { return phrase }
        switch status {
        case 100..<200: return "Informational"
        case 200..<300: return "Success"
        case 300..<400: return "Redirection"
        case 400..<500: return "Client Error"
        default: return "Server Error"
        }
    }

    static let registeredReasonPhrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols", 102: "Processing", 103: "Early Hints",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information", 204: "No Content",
        205: "Reset Content", 206: "Partial Content", 207: "Multi-Status", 208: "Already Reported", 226: "IM Used",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        305: "Use Proxy", 307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden", 404: "Not Found",
        405: "Method Not Allowed", 406: "Not Acceptable", 407: "Proxy Authentication Required",
        408: "Request Timeout", 409: "Conflict", 410: "Gone", 411: "Length Required", 412: "Precondition Failed",
        413: "Payload Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Entity", 423: "Locked",
        424: "Failed Dependency", 425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required",
        429: "Too Many Requests", 431: "Request Header Fields Too Large", 451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported", 506: "Variant Also Negotiates",
        507: "Insufficient Storage", 508: "Loop Detected", 511: "Network Authentication Required",
    ]
}
