import PushCore

/// How one dialect words every refusal and failure: the one place its wire shape of errors is
/// written. Handlers throw; the router hands what they throw, and what the edge refuses, to the
/// renderer of the route's dialect.
///
/// A dialect's own typed errors (`DialectError`) render themselves; the renderer words the
/// refusals every dialect shares.
public protocol ErrorRenderer: Sendable {
    /// A path nginx would read otherwise (see `RequestPathCheck`): 400, before any handler.
    func badPath(_ reason: String) -> Response
    /// The body over the server's limit of `limit` bytes (`bytes` declared or read).
    func bodyTooLarge(bytes: Int, limit: Int) -> Response
    /// The request's lane had no room for it: try again in a moment.
    func busy() -> Response
    /// A sender key missing, invalid or out of its scope (the send-side endpoints' 401/403).
    func senderRefused(_ refusal: SenderRefusal) -> Response
    /// A failure on our side: 500, or 503 while the store is away (`ServiceFailure`).
    func failure(_ failure: ServiceFailure) -> Response
    /// `method` on a route that serves only `allowed` (`Router.Route.methods`), before any
    /// handler: each dialect's own answer, which its document fixes (a 405 with `Allow`, or
    /// pnm2's 400). No default: a dialect that forgot would answer in another's words.
    func methodNotAllowed(_ method: String, allowed: [String]) -> Response
}

extension ErrorRenderer {
    /// Whatever a handler threw, in this dialect's shape.
    public func response(to error: any Error) -> Response {
        switch error {
        case let error as any DialectError: return error.response
        case let refusal as SenderRefusal: return senderRefused(refusal)
        case let refusal as EdgeRefusal: return response(to: refusal)
        default: return failure(ServiceFailure(error))
        }
    }

    public func response(to refusal: EdgeRefusal) -> Response {
        switch refusal {
        case .bodyTooLarge(let bytes, let limit): return bodyTooLarge(bytes: bytes, limit: limit)
        case .busy: return busy()
        }
    }

    /// Shared by the dialects that send nothing themselves: their routes never check a key.
    public func senderRefused(_ refusal: SenderRefusal) -> Response {
        PlainErrors().senderRefused(refusal)
    }

    /// Only the lanes' routes (pnm2's sends, cospace logins) are ever busy.
    public func busy() -> Response {
        PlainErrors().busy()
    }
}

/// The shape of the routes outside the dialects (`/healthz`, `/metrics`, …) and of a path no
/// route takes: one line of plain text.
public struct PlainErrors: ErrorRenderer {
    public init() {}

    public func badPath(_ reason: String) -> Response {
        .text(400, reason)
    }

    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        .text(413, "request body too large: \(bytes) bytes, the limit is \(limit)")
    }

    public func busy() -> Response {
        .text(503, "busy, try again", headers: [("Retry-After", "1")])
    }

    public func senderRefused(_ refusal: SenderRefusal) -> Response {
        switch refusal {
        case .unauthorized(let reason): return .text(401, reason)
        case .forbidden(let reason): return .text(403, reason)
        }
    }

    public func failure(_ failure: ServiceFailure) -> Response {
        Response.text(failure.status, failure.message, headers: failure.headers).noted(failure.detail)
    }

    /// The operator endpoints' words: HEAD is GET without the body, so only GET is named.
    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        let named = allowed.filter { $0 != "HEAD" }.joined(separator: " or ")
        return .text(405, "use \(named)", headers: [("Allow", allowed.joined(separator: ", "))])
    }
}
