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

    /// A 500, or a 503 while the database is away; the caller hears only that, the log line
    /// gets the detail.
    public func failure(_ failure: ServiceFailure) -> Response {
        let response =
            failure.kind == .internalError
            ? BeamsError.render(500, "Something went wrong", "Internal server error.")
            : BeamsError.render(
                failure.status, "Service Unavailable", "The database is unavailable, try again later.",
                headers: failure.headers)
        return response.noted(failure.detail)
    }

    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        BeamsError.methodNotAllowed(allowed: allowed).response
    }
}
