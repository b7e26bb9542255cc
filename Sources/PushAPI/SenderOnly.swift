import Logging
import PushCore

/// What a send-side endpoint (pnm2, cospace events, Beams publishes, bridge topic publishes)
/// tells `SenderOnly`: what it checks before asking for a key. Its 401 and 403 are its
/// dialect's renderer's (`ErrorRenderer.senderRefused`).
public protocol SendEndpoint: DialectHandler {
    /// The dialect a sender key's `--dialect` scope names this endpoint by.
    var dialect: SenderDialect { get }

    /// Refusals that come before the sender's key: a wrong path or method is wrong whoever
    /// asks, and a client without credentials (a CORS preflight's OPTIONS) learns what to
    /// fix, not a 401.
    func checkAddress(_ request: Request) throws

    /// Answers an allowed sender, pushing only to the apps of its scope: a request that names
    /// an app outside it is refused whole (403) before anything is queued or sent, and a
    /// fan-out leaves other apps' devices out and says how many.
    func respond(to request: Request, as sender: Sender, logger: Logger) throws -> Response
}

extension SendEndpoint {
    /// The endpoint alone, as a caller on this machine with no keys stored would reach it:
    /// every app. Served, it sits behind `SenderOnly`, which passes the sender it allowed.
    public func respond(to request: Request, logger: Logger) throws -> Response {
        try respond(to: request, as: .loopback, logger: logger)
    }
}

/// Why a caller may not send: `SenderAuthorization`'s 401 and 403, with reasons safe to show.
/// Thrown, and worded by the dialect's renderer.
public enum SenderRefusal: Error, Sendable, Equatable {
    /// No key, or not a valid one.
    case unauthorized(reason: String)
    /// No keys exist and the caller is not on this machine, or the key's scope does not
    /// reach this dialect or the apps the request names.
    case forbidden(reason: String)
}

/// A send-side endpoint answered only for callers with send rights (see
/// `SenderAuthorization`): the one place the sender check runs, so that no send-side handler
/// can forget it. Everyone else gets the endpoint's own 401/403; a key store that cannot be
/// read is the endpoint's failure (500, or 503 while the database is away).
public struct SenderOnly<Endpoint: SendEndpoint>: DialectHandler {
    public let endpoint: Endpoint
    private let senders: SenderAuthorization

    public init(_ endpoint: Endpoint, senders: SenderAuthorization) {
        self.endpoint = endpoint
        self.senders = senders
    }

    public func respond(to request: Request, logger: Logger) throws -> Response {
        try endpoint.checkAddress(request)
        switch senders.authorize(request) {
        case .allowed(let sender):
            guard sender.scope.allows(endpoint.dialect) else {
                throw SenderRefusal.forbidden(
                    reason: "the sender key \(sender.name) may not send through \(endpoint.dialect.rawValue)")
            }
            return try endpoint.respond(to: request, as: sender, logger: logger)
        case .unauthorized(let reason): throw SenderRefusal.unauthorized(reason: reason)
        case .forbidden(let reason): throw SenderRefusal.forbidden(reason: reason)
        case .unavailable(let error): throw error
        }
    }

    public var errors: any ErrorRenderer { endpoint.errors }

    public var routes: [Router.Route] { endpoint.routes.map { $0.answered(by: self) } }
}
