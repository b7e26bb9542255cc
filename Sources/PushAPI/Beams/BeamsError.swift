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

    var response: Response {
        switch self {
        case .methodNotAllowed(let allowed):
            return Self.render(
                405, "Method not allowed", "Use \(allowed.joined(separator: " or ")).",
                headers: [("Allow", allowed.joined(separator: ", "))])
        case .notFound(let what): return Self.render(404, "Not found", what)
        case .invalidContentType: return Self.render(400, "Invalid content type", "Only application/json is supported.")
        case .bodyTooLarge(let limit):
            return Self.render(400, "Bad request", "Request body size is too large (max \(limit / 1024)KiB).")
        case .unreadableBody(let why):
            return Self.render(400, "Bad request", "Failed to read body as a JSON object: \(why).")
        case .invalidField(let why): return Self.render(400, "Bad request", why)
        case .unprocessable(let why): return Self.render(422, "Unprocessable Entity", why)
        case .unauthorized(let why):
            return Self.render(401, "Unauthorized", why, headers: [("WWW-Authenticate", SenderAuthorization.challenge)])
        case .forbidden(let why): return Self.render(403, "Forbidden", why)
        case .instanceNotFound: return Self.render(404, "Instance not found", "Could not find the instance.")
        case .newDeviceRefused(.addressQuota(let seconds)):
            return Self.render(
                429, "Too Many Requests", "Too many new devices from this address: try again in \(seconds) seconds.",
                headers: [("Retry-After", String(seconds))])
        case .newDeviceRefused(.appCeiling(_, let maximum)):
            return Self.render(
                507, "Insufficient Storage",
                "This instance has \(maximum) devices, the most this server keeps: no new device can register.")
        }
    }

    static func render(
        _ status: Int, _ title: String, _ description: String, headers: [(name: String, value: String)] = []
    ) -> Response {
        let body = JSONValue.object(["error": .string(title), "description": .string(description)]).encoded()
        return .json(status, body, headers: headers)
    }
}
