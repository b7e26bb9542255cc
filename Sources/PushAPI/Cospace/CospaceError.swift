import PushCore

/// Every refusal of cospace `/api/push` and `/api/push/events`, rendered in one place in the
/// document's shape `{"status": "…"}` (plus `field` where one field is at fault).
enum CospaceError: DialectError, Equatable {
    /// 400 with one of the document's status values (`unknown-appid`, `invalid-appid`, …) or
    /// one in their style (`invalid-system`, `invalid-json`, …).
    case invalid(String)
    /// 400 about one field of a push event.
    case invalidField(status: String, field: String)
    case unauthorized(challenge: String)
    /// 429 `too-many-requests`: too many failed logins from the address or for the user name;
    /// refused before any password hashing.
    case tooManyLogins(retryAfterSeconds: Int)
    case notFound(status: String)
    case unsupportedMediaType
    case bodyTooLarge(limit: Int)
    /// 500: our configuration lacks what the request needs; the detail goes to the log only.
    case notConfigured(status: String, detail: String)

    var response: Response {
        switch self {
        case .invalid(let status):
            return Self.body(400, ["status": status])
        case .invalidField(let status, let field):
            return Self.body(400, ["status": status, "field": field])
        case .unauthorized(let challenge):
            return Self.body(401, ["status": "unauthorized"], headers: [("WWW-Authenticate", challenge)])
        case .tooManyLogins(let seconds):
            return Self.body(429, ["status": "too-many-requests"], headers: [("Retry-After", String(seconds))])
                .noted("login throttled: too many failed logins, retry after \(seconds) s")
        case .notFound(let status):
            return Self.body(404, ["status": status])
        case .unsupportedMediaType:
            return Self.body(415, ["status": "unsupported-media-type"])
        case .bodyTooLarge(let limit):
            return Self.body(413, ["status": "body-too-large"]).noted("body over \(limit) bytes")
        case .notConfigured(let status, let detail):
            return Self.body(500, ["status": status]).noted(detail)
        }
    }

    static func body(_ status: Int, _ fields: [String: String], headers: [(name: String, value: String)] = [])
        -> Response
    {
        .json(status, JSONValue.object(fields.mapValues { .string($0) }).encoded(), headers: headers)
    }
}
