import Logging
import PushCore

/// A refusal that a dialect renders in its own error shape (its status, its JSON or text, its
/// headers). Handlers throw it; `Router.answer` turns it into the response, in one place.
public protocol DialectError: Error {
    var response: Response { get }
}

/// A failure on pushgate's side rather than the caller's: a fault of ours (500, the detail in
/// the log only) or a store that cannot be reached for now (503 with `Retry-After`: the same
/// request may work in a moment). Every dialect words both in its own shape.
public struct ServiceFailure: Sendable {
    public enum Kind: Sendable {
        case internalError
        case unavailable
    }

    public let kind: Kind
    /// The underlying error, for the operator's log line only.
    public let detail: String

    /// Classifies an error that no dialect rendered itself.
    public init(_ error: any Error) {
        kind = error is StoreUnavailable ? .unavailable : .internalError
        detail = String(describing: error)
    }

    public var status: Int { kind == .unavailable ? 503 : 500 }

    /// What the caller may be told: never the detail.
    public var message: String {
        kind == .unavailable ? "the database is unavailable, try again later" : "internal error"
    }

    /// `Retry-After` on a 503, so that callers that read it wait before trying again.
    public var headers: [(name: String, value: String)] {
        kind == .unavailable ? [("Retry-After", String(StoreUnavailable.retryAfterSeconds))] : []
    }
}

extension Response {
    /// This response with `note` for its log line, which the caller never reads.
    func noted(_ note: String) -> Response {
        var response = self
        response.logNote = note
        return response
    }
}

/// A dialect's endpoint: answers a request or throws. What it throws becomes its response in
/// one place (`Router.answer`), through the renderer of its route's group (`RouteGroup`).
public protocol DialectHandler: RequestHandler {
    func respond(to request: Request, context: RequestContext) throws -> Response

    /// The routes the endpoint reads parameters from, answered by it; none when it reads
    /// nothing from its path (then whoever serves it names its routes).
    var routes: [Router.Route] { get }

    /// What outranks a wrong method (a Beams path naming no resource, a Matrix caller not
    /// listed). Asked by the router only for a method the route does not serve: `respond`
    /// makes the same checks first.
    func checkAddress(_ request: Request, context: RequestContext) throws
}

extension DialectHandler {
    public var routes: [Router.Route] { [] }

    public func checkAddress(_ request: Request, context: RequestContext) throws {}

    /// Its routes' answer outside any group (refusals in plain text; served, in its group's).
    public func handle(_ request: Request) -> Response {
        Router(routes: routes).handle(request)
    }
}
