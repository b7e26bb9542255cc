/// Anything that answers requests: the router, or one endpoint driven on its own (tests).
/// The FastCGI edge calls `route` once with the request's head, before reading its body, then
/// exactly one of `handle` and `refuse`.
public protocol RequestHandler: Sendable {
    /// Decides the request's route once (recorded in `head.route`) and the lane it is answered
    /// in; nil: on the responder thread that read it. Called on a responder thread for every
    /// request, so it decides from the head alone, without I/O but for the sender key of a
    /// request that would wait in a lane (one indexed read the handler then does not repeat:
    /// see `SenderOnly`).
    func route(_ head: inout Request) -> RequestLane?

    func handle(_ request: Request) -> Response

    /// The answer to a request refused at the edge (its body too large, its lane full): the
    /// shape of the dialect it was routed to. Called on any thread, without I/O.
    func refuse(_ head: Request, _ refusal: EdgeRefusal) -> Response
}

extension RequestHandler {
    public func route(_ head: inout Request) -> RequestLane? { nil }

    public func refuse(_ head: Request, _ refusal: EdgeRefusal) -> Response {
        switch refusal {
        case .bodyTooLarge(let bytes, let limit):
            return .text(413, "request body too large: \(bytes) bytes, the limit is \(limit)")
        case .busy:
            return .text(503, "busy, try again", headers: [("Retry-After", "1")])
        }
    }
}
