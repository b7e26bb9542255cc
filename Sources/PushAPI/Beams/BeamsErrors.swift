import PushCore

/// Beams' refusals, in every API of it (device, client, publish, users): its
/// `{"error", "description"}` shape.
struct BeamsErrors: ErrorRenderer {
    func badPath(_ reason: String) -> Response {
        BeamsError.invalidField(reason).response
    }

    /// Over the server's body limit: the same refusal as over an endpoint's own.
    func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        BeamsError.bodyTooLarge(limit: limit).response
    }

    func senderRefused(_ refusal: SenderRefusal) -> Response {
        switch refusal {
        case .unauthorized(let reason): return BeamsError.unauthorized(reason).response
        case .forbidden(let reason): return BeamsError.forbidden(reason).response
        }
    }

    func failure(_ failure: ServiceFailure) -> Response {
        BeamsError.failure(failure)
    }

    func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        BeamsError.methodNotAllowed(allowed: allowed).response
    }
}
