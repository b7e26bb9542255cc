import PushCore

/// Why a Beams request was refused, rendered in Beams' error shape:
/// `{"error": "<title>", "description": "<what to fix>"}` (the titles of the publish API's
/// error table, pusher.com/docs/beams/reference/publish-api).
enum BeamsError: DialectError, Equatable {
    case methodNotAllowed(allowed: [String])
    case notFound(String)
    case invalidContentType
    case bodyTooLarge(limit: Int)
    case unreadableBody(String)
    case invalidField(String)
    case unprocessable(String)
    case unauthorized(String)
    case forbidden(String)
    case instanceNotFound
    /// A new device or client refused: the caller's address created
    /// `PUSHGATE_NEW_DEVICES_PER_HOUR` within the hour, or the app has
    /// `PUSHGATE_MAX_DEVICES_PER_APP`. Nothing was stored.
    case newDeviceRefused(NewDeviceGate.Refusal)

    var status: Int {
        switch self {
        case .methodNotAllowed: return 405
        case .notFound, .instanceNotFound: return 404
        case .invalidContentType, .bodyTooLarge, .unreadableBody, .invalidField: return 400
        case .unprocessable: return 422
        case .unauthorized: return 401
        case .forbidden: return 403
        case .newDeviceRefused(.addressQuota): return 429
        case .newDeviceRefused(.appCeiling): return 507
        }
    }

    var title: String {
        switch self {
        case .methodNotAllowed: return "Method not allowed"
        case .notFound: return "Not found"
        case .invalidContentType: return "Invalid content type"
        case .bodyTooLarge, .unreadableBody, .invalidField: return "Bad request"
        case .unprocessable: return "Unprocessable Entity"
        case .unauthorized: return "Unauthorized"
        case .forbidden: return "Forbidden"
        case .instanceNotFound: return "Instance not found"
        case .newDeviceRefused(.addressQuota): return "Too Many Requests"
        case .newDeviceRefused(.appCeiling): return "Insufficient Storage"
        }
    }

    var description: String {
        switch self {
        case .methodNotAllowed(let allowed): return "Use \(allowed.joined(separator: " or "))."
        case .notFound(let what): return what
        case .invalidContentType: return "Only application/json is supported."
        case .bodyTooLarge(let limit): return "Request body size is too large (max \(limit / 1024)KiB)."
        case .unreadableBody(let why): return "Failed to read body as a JSON object: \(why)."
        case .invalidField(let why), .unprocessable(let why), .unauthorized(let why), .forbidden(let why): return why
        case .instanceNotFound: return "Could not find the instance."
        case .newDeviceRefused(.addressQuota(let seconds)):
            return "Too many new devices from this address: try again in \(seconds) seconds."
        case .newDeviceRefused(.appCeiling(_, let maximum)):
            return "This instance has \(maximum) devices, the most this server keeps: no new device can register."
        }
    }

    var response: Response {
        var headers: [(name: String, value: String)] = []
        switch self {
        case .methodNotAllowed(let allowed): headers.append(("Allow", allowed.joined(separator: ", ")))
        case .unauthorized: headers.append(("WWW-Authenticate", SenderAuthorization.challenge))
        case .newDeviceRefused(.addressQuota(let seconds)): headers.append(("Retry-After", String(seconds)))
        default: break
        }
        return Self.render(status: status, title: title, description: description, headers: headers)
    }

    /// A failure on our side: a 500, or a 503 while the database is away; the caller hears
    /// only that, the log line gets the detail.
    static func failure(_ failure: ServiceFailure) -> Response {
        switch failure.kind {
        case .internalError:
            return failure.noted(render(status: 500, title: "Something went wrong", description: "Internal server error."))
        case .unavailable:
            return failure.noted(
                render(
                    status: failure.status, title: "Service Unavailable",
                    description: "The database is unavailable, try again later.", headers: failure.headers))
        }
    }

    private static func render(
        status: Int, title: String, description: String, headers: [(name: String, value: String)] = []
    ) -> Response {
        let body = JSONValue.object(["error": .string(title), "description": .string(description)]).encoded()
        return .json(status, body, headers: headers)
    }
}
