/// An HTTP response as a handler produces it.
public struct Response: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Detail for the operator's log line (an underlying error), never sent to the client.
    public var logNote: String?

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
        Response(
            status: status,
            headers: [("Content-Type", "text/plain; charset=utf-8")] + headers,
            body: Array((message + "\n").utf8))
    }

    /// A fault on our side: the client learns only that, the log line gets the detail.
    public static func internalError(_ error: any Error) -> Response {
        Response(
            status: 500, headers: [("Content-Type", "text/plain; charset=utf-8")],
            body: Array("internal error\n".utf8), logNote: String(describing: error))
    }

    public static func json(_ status: Int, _ body: [UInt8], headers: [(name: String, value: String)] = []) -> Response {
        Response(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// The standard reason phrase, for the CGI `Status:` line.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 413: return "Payload Too Large"
        case 415: return "Unsupported Media Type"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        default: return "Status \(status)"
        }
    }
}

/// Anything that answers requests: a dialect, the router, the health check.
public protocol RequestHandler: Sendable {
    func handle(_ request: Request) -> Response
}
