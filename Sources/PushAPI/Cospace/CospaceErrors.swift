import PushCore

/// cospace's refusals (`/api/push` and its events): `{"status": "…"}` bodies.
public struct CospaceErrors: ErrorRenderer {
    public init() {}
    public func badPath(_ reason: String) -> Response {
        CospaceError.invalidPath(reason).response
    }

    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        CospaceError.bodyTooLarge(limit: limit).response
    }

    /// The password lane had no room: try again in a moment.
    public func busy() -> Response {
        CospaceError.passwordLaneBusy.response
    }

    /// The events' sender check; a login's refusals are `CospaceError`s of their own.
    public func senderRefused(_ refusal: SenderRefusal) -> Response {
        switch refusal {
        case .unauthorized: return CospaceError.unauthorized(challenge: SenderAuthorization.challenge).response
        case .forbidden: return CospaceError.forbidden.response
        }
    }

    public func failure(_ failure: ServiceFailure) -> Response {
        CospaceError.failure(failure)
    }

    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        CospaceError.methodNotAllowed(allow: allowed.joined(separator: ", ")).response
    }
}
