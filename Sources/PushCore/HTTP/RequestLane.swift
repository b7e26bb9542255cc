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

    /// Matrix notifies, whose homeserver waits while pushgate pushes: a lane apart from pnm2's,
    /// with its own bound on the pushes it has out, so that one homeserver's users cannot crowd
    /// out a PBX's sends.
    public static let matrix = RequestLane("matrix")

    /// Logins whose password is hashed (cospace `/api/push`): a few threads, so that however
    /// many logins arrive, the slow KDF never takes more than those threads' CPU.
    public static let passwords = RequestLane("passwords")

    public var description: String { name }
}
