import PushCore

/// Beams' refusals, in every API of it (device, client, publish, users): its
/// `{"error", "description"}` shape.
public struct BeamsErrors: ErrorRenderer {
    public init() {}
    public func badPath(_ reason: String) -> Response {
        BeamsError.invalidField(reason).response
    }

    /// Over the server's body limit: the same refusal as over an endpoint's own.
    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        BeamsError.bodyTooLarge(limit: limit).response
    }

    public func senderRefused(_ refusal: SenderRefusal) -> Response {
        switch refusal {
        case .unauthorized(let reason): return BeamsError.unauthorized(reason).response
        case .forbidden(let reason): return BeamsError.forbidden(reason).response
        }
    }

    public func failure(_ failure: ServiceFailure) -> Response {
        BeamsError.failure(failure)
    }

    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        BeamsError.methodNotAllowed(allowed: allowed).response
    }
}
