import Logging
import PushCore

/// What a send-side endpoint (pnm2, cospace events, Beams publishes, bridge topic publishes)
/// tells `SenderOnly`; its `checkAddress` runs before the key (a wrong path is wrong whoever
/// asks). Its 401 and 403 are its dialect's renderer's (`ErrorRenderer.senderRefused`).
public protocol SendEndpoint: DialectHandler {
    /// The dialect a sender key's `--dialect` scope names this endpoint by.
    var dialect: SenderDialect { get }

    /// Answers an allowed sender, pushing only to the apps of its scope: a request that names
    /// an app outside it is refused whole (403) before anything is queued or sent, and a
    /// fan-out leaves other apps' devices out and says how many.
    func respond(to request: Request, as sender: Sender, context: RequestContext) throws -> Response
}

extension SendEndpoint {
    /// The endpoint alone, as a caller on this machine with no keys stored would reach it:
    /// every app. Served, it sits behind `SenderOnly`, which passes the sender it allowed.
    public func respond(to request: Request, context: RequestContext) throws -> Response {
        try respond(to: request, as: .loopback, context: context)
    }
}

/// A send-side endpoint answered only for callers with send rights (see
/// `SenderAuthorization`): the one place the sender check runs, so that no send-side handler
/// can forget it. Everyone else gets the endpoint's own 401/403; a key store that cannot be
/// read is the endpoint's failure (500, or 503 while the database is away).
///
/// A request that would wait in a lane (pnm2's sends wait for the upstream) is checked from
/// its head, before the lane is chosen: a caller without send rights is answered on the
/// responder thread that read it and never takes a lane slot, so that a flood of requests
/// without a key cannot crowd out a PBX's sends. The check is kept on the request's match,
/// and `respond` reads it there: a keyed send asks the key store once, as before.
public struct SenderOnly<Endpoint: SendEndpoint>: DialectHandler {
    public let endpoint: Endpoint
    private let senders: SenderAuthorization

    public init(_ endpoint: Endpoint, senders: SenderAuthorization) {
        self.endpoint = endpoint
        self.senders = senders
    }

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        try endpoint.checkAddress(request, context: context)
        let sender = try context.match.sender?.get() ?? sender(of: request)
        return try endpoint.respond(to: request, as: sender, context: context)
    }

    /// The sender of `request` if it may send through this endpoint's dialect; otherwise
    /// throws its `SenderRefusal`, or the key store's error.
    func sender(of request: Request) throws -> Sender {
        switch senders.authorize(request) {
        case .allowed(let sender):
            guard sender.scope.sends else {
                throw SenderRefusal.forbidden(
                    reason:
                        "the sender key \(sender.name) is an operator key: it reads /metrics and /status and sends nothing"
                )
            }
            guard sender.scope.allows(endpoint.dialect) else {
                throw SenderRefusal.forbidden(
                    reason: "the sender key \(sender.name) may not send through \(endpoint.dialect.rawValue)")
            }
            return sender
        case .unauthorized(let reason): throw SenderRefusal.unauthorized(reason: reason)
        case .forbidden(let reason): throw SenderRefusal.forbidden(reason: reason)
        case .unavailable(let error): throw error
        }
    }

    /// The lane of a request the endpoint's route puts in one, for a caller with send rights
    /// only; anyone else is answered where it was read. A key store that cannot be read is
    /// left to `respond` (the check runs again there and answers the failure).
    func lane(_ head: inout Request, own: RequestLane) -> RequestLane? {
        let checked: Result<Sender, SenderRefusal>
        do {
            checked = .success(try sender(of: head))
        } catch let refusal as SenderRefusal {
            checked = .failure(refusal)
        } catch {
            return nil
        }
        head.route?.sender = checked
        return (try? checked.get()) != nil ? own : nil
    }

    public func checkAddress(_ request: Request, context: RequestContext) throws {
        try endpoint.checkAddress(request, context: context)
    }

    /// The endpoint's routes, each answered by its own handler behind the sender check (an
    /// endpoint may answer its routes with copies of itself that know their address); a route
    /// the endpoint answers with something else (an unknown path) is refused before any key.
    public var routes: [Router.Route] {
        endpoint.routes.map { route in
            guard let own = route.handler as? Endpoint else { return route }
            let guarded = SenderOnly(own, senders: senders)
            return route.answered(by: guarded, lane: { head, lane in guarded.lane(&head, own: lane) })
        }
    }
}
