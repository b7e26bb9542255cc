import PushCore

/// pnm2's refusals: its `{"code", "response"}` reply with the HTTP status as the code.
public struct Pnm2Errors: ErrorRenderer {
    public init() {}
    public func badPath(_ reason: String) -> Response {
        Pnm2Refusal(400, Pnm2Reply.badObject(reason).response).response
    }

    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        Pnm2Refusal(413, "request body too large: \(bytes) bytes, the limit is \(limit)").response
    }

    /// The upstream lane had no room: a fault on our side that passes, so the document's
    /// service error (code 500), with `Retry-After` for callers that read it.
    public func busy() -> Response {
        Pnm2Refusal(500, Pnm2Gateway.busyMessage, headers: [("Retry-After", "1")]).response
    }

    public func senderRefused(_ refusal: SenderRefusal) -> Response {
        switch refusal {
        case .unauthorized(let reason):
            return Pnm2Refusal(401, reason, headers: [("WWW-Authenticate", SenderAuthorization.challenge)]).response
        case .forbidden(let reason):
            return Pnm2Refusal(403, reason).response
        }
    }

    public func failure(_ failure: ServiceFailure) -> Response {
        Pnm2Refusal(failure.status, failure.message, headers: failure.headers).response.noted(failure.detail)
    }

    /// The document answers a wrong method with 400, not 405 (see `Pnm2Gateway.checkAddress`).
    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        let allow = allowed.joined(separator: ", ")
        return Pnm2Refusal(400, "use \(allowed.joined(separator: " or "))", headers: [("Allow", allow)]).response
    }
}
