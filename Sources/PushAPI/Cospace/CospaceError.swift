import PushCore

/// Every refusal of cospace `/api/push` and `/api/push/events`, rendered in one place in the
/// document's shape `{"status": "…"}` (plus `field` where one field is at fault).
enum CospaceError: DialectError, Equatable {
    /// 400 with one of the document's status values (`unknown-appid`, `invalid-appid`, …) or
    /// one in their style (`invalid-system`, `invalid-json`, …).
    case invalid(String)
    /// 400 `invalid-path`: a path nginx would read otherwise; the reason goes to the log.
    case invalidPath(String)
    /// 400 about one field of a push event.
    case invalidField(status: String, field: String)
    case unauthorized(challenge: String)
    /// 429 `too-many-requests`: too many failed logins from the address or for the user name;
    /// refused before any password hashing.
    case tooManyLogins(retryAfterSeconds: Int)
    /// 503 `service-busy`: the password lane had no room for the login.
    case passwordLaneBusy
    case forbidden
    case notFound(status: String)
    case methodNotAllowed(allow: String)
    case unsupportedMediaType
    case bodyTooLarge(limit: Int)
    /// 500: our configuration lacks what the request needs; the detail goes to the log only.
    case notConfigured(status: String, detail: String)

    var response: Response {
        switch self {
        case .invalid(let status):
            return Self.body(400, ["status": status])
        case .invalidPath(let reason):
            var response = Self.body(400, ["status": "invalid-path"])
            response.logNote = reason
            return response
        case .invalidField(let status, let field):
            return Self.body(400, ["status": status, "field": field])
        case .unauthorized(let challenge):
            return Self.body(401, ["status": "unauthorized"], headers: [("WWW-Authenticate", challenge)])
        case .tooManyLogins(let seconds):
            var response = Self.body(429, ["status": "too-many-requests"], headers: [("Retry-After", String(seconds))])
            response.logNote = "login throttled: too many failed logins, retry after \(seconds) s"
            return response
        case .passwordLaneBusy:
            var response = Self.body(503, ["status": "service-busy"], headers: [("Retry-After", "1")])
            response.logNote = "the password lane had no room"
            return response
        case .forbidden:
            return Self.body(403, ["status": "forbidden"])
        case .notFound(let status):
            return Self.body(404, ["status": status])
        case .methodNotAllowed(let allow):
            return Self.body(405, ["status": "method-not-allowed"], headers: [("Allow", allow)])
        case .unsupportedMediaType:
            return Self.body(415, ["status": "unsupported-media-type"])
        case .bodyTooLarge(let limit):
            var response = Self.body(413, ["status": "body-too-large"])
            response.logNote = "body over \(limit) bytes"
            return response
        case .notConfigured(let status, let detail):
            var response = Self.body(500, ["status": status])
            response.logNote = detail
            return response
        }
    }

    /// A failure on our side: `internal-error`, or `service-unavailable` while the database is away.
    static func failure(_ failure: ServiceFailure) -> Response {
        let status = failure.kind == .unavailable ? "service-unavailable" : "internal-error"
        return failure.noted(body(failure.status, ["status": status], headers: failure.headers))
    }

    private static func body(_ status: Int, _ fields: [String: String], headers: [(name: String, value: String)] = [])
        -> Response
    {
        .json(status, JSONValue.object(fields.mapValues { .string($0) }).encoded(), headers: headers)
    }
}
