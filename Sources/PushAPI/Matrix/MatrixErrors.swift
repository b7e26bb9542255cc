import PushCore

/// The Matrix dialect's refusals: the spec's standard error (`{"errcode", "error"}`), with
/// Sygnal's statuses. A homeserver reads only the status; an operator reading a pusher's
/// failures in the homeserver's log gets the reason.
public struct MatrixErrors: ErrorRenderer {
    /// Where a wrong method's refusal is noted for `/status`, as the gateway's own are.
    let answers: MatrixAnswerLog?
    public init(answers: MatrixAnswerLog?) { self.answers = answers }

    public func badPath(_ reason: String) -> Response {
        MatrixRefusal(status: 400, errcode: "M_UNRECOGNIZED", message: reason).response
    }

    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        MatrixRefusal(
            status: 413, errcode: "M_TOO_LARGE", message: "request body too large: \(bytes) bytes, the limit is \(limit)"
        ).response
    }

    /// The upstream lane had no room: the homeserver retries after its backoff.
    public func busy() -> Response {
        MatrixRefusal(
            status: 503, errcode: "M_LIMIT_EXCEEDED", message: "push gateway busy, try again",
            headers: [("Retry-After", "1")]
        ).response
    }

    public func failure(_ failure: ServiceFailure) -> Response {
        MatrixRefusal(status: failure.status, errcode: "M_UNKNOWN", message: failure.message, headers: failure.headers)
            .response.noted(failure.detail)
    }

    /// The notify serves POST alone, which the refusal names itself.
    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        let refusal = MatrixRefusal.unrecognizedMethod
        answers?.record(status: refusal.status, refusal.message)
        return refusal.response
    }
}
