import PushCore

/// The push bridge's refusals (`pnsub`/`pnunsub` and topic publishes): its error message.
public struct BridgeErrors: ErrorRenderer {
    public init() {}
    public func badPath(_ reason: String) -> Response {
        BridgeResponse.error(reason, correlation: nil, status: 400, headers: [])
    }

    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        BridgeError.bodyTooLarge(limit: limit).response
    }

    public func senderRefused(_ refusal: SenderRefusal) -> Response {
        switch refusal {
        case .unauthorized(let reason):
            let challenge = [("WWW-Authenticate", SenderAuthorization.challenge)]
            return BridgeResponse.error(reason, correlation: nil, status: 401, headers: challenge)
        case .forbidden(let reason): return BridgeResponse.error(reason, correlation: nil, status: 403, headers: [])
        }
    }

    public func failure(_ failure: ServiceFailure) -> Response {
        CorrelatedFailure.response(failure, correlation: nil)
    }

    /// Every bridge route serves POST alone, which the refusal names itself.
    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        let message = "method \(method) not allowed: use POST"
        return BridgeResponse.error(message, correlation: nil, status: 405, headers: [("Allow", "POST")])
    }
}
