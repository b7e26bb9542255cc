import PushCore

/// cospace's refusals (`/api/push` and its events): `{"status": "…"}` bodies.
public struct CospaceErrors: ErrorRenderer {
    public init() {}
    /// `invalid-path`; the reason goes to the log.
    public func badPath(_ reason: String) -> Response {
        CospaceError.body(400, ["status": "invalid-path"]).noted(reason)
    }

    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        CospaceError.bodyTooLarge(limit: limit).response
    }

    /// The password lane had no room: try again in a moment (`service-busy`).
    public func busy() -> Response {
        CospaceError.body(503, ["status": "service-busy"], headers: [("Retry-After", "1")])
            .noted("the password lane had no room")
    }

    /// The events' sender check; a login's refusals are `CospaceError`s of their own.
    public func senderRefused(_ refusal: SenderRefusal) -> Response {
        switch refusal {
        case .unauthorized: return CospaceError.unauthorized(challenge: SenderAuthorization.challenge).response
        case .forbidden: return CospaceError.body(403, ["status": "forbidden"])
        }
    }

    /// `internal-error`, or `service-unavailable` while the database is away.
    public func failure(_ failure: ServiceFailure) -> Response {
        let status = failure.kind == .unavailable ? "service-unavailable" : "internal-error"
        return CospaceError.body(failure.status, ["status": status], headers: failure.headers).noted(failure.detail)
    }

    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        CospaceError.body(405, ["status": "method-not-allowed"], headers: [("Allow", allowed.joined(separator: ", "))])
    }
}
