import PushCore

/// The push bridge's refusals (`pnsub`/`pnunsub` and topic publishes): its error message.
public struct BridgeErrors: ErrorRenderer {
    public init() {}
    public func badPath(_ reason: String) -> Response {
        BridgeError.invalidPath(reason).response
    }

    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        BridgeError.bodyTooLarge(limit: limit).response
    }

    public func senderRefused(_ refusal: SenderRefusal) -> Response {
        switch refusal {
        case .unauthorized(let reason): return BridgeError.unauthorized(reason).response
        case .forbidden(let reason): return BridgeError.forbidden(reason).response
        }
    }

    public func failure(_ failure: ServiceFailure) -> Response {
        CorrelatedFailure.response(failure, correlation: nil)
    }

    /// Every bridge route serves POST alone, which the refusal names itself.
    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        BridgeError.methodNotAllowed(method).response
    }
}
