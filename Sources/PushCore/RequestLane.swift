/// A named share of threads of their own (a bulkhead) that the FastCGI edge runs some requests
/// in: the requests that wait on something slow outside the process, such as APNs or FCM. However
/// many of them arrive, they can hold only their lane's threads, never the responder threads that
/// every other request needs.
public struct RequestLane: Hashable, Sendable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    /// Requests whose caller waits while pushgate pushes to APNs/FCM (pnm2's sends).
    public static let upstream = RequestLane("upstream")

    /// Logins whose password is hashed (cospace `/api/push`): a few threads, so that however
    /// many logins arrive, the slow KDF never takes more than those threads' CPU.
    public static let passwords = RequestLane("passwords")

    public var description: String { name }
}

/// A handler that sends some of its requests to a lane, and says what their callers get when the
/// lane has no room for them.
public protocol LaneAssigning: RequestHandler {
    /// The lane `request` is answered in; nil: on the responder thread that read it. `request`
    /// has its method, path, query and headers but not its body yet. Called on a responder
    /// thread for every request, so it decides from the head alone, without I/O.
    func lane(for request: Request) -> RequestLane?

    /// The answer to a request whose lane had no room for it within its bounds (its queue full,
    /// or its wait in the queue too long): the dialect's own "busy, try again" error. Called on
    /// any thread, without I/O.
    func busyResponse(for request: Request) -> Response
}
