/// Why a caller may not send: `SenderAuthorization`'s 401 and 403, with reasons safe to show.
/// Thrown by `SenderOnly` (PushAPI), and worded by the dialect's renderer; kept on the
/// request's `RouteMatch` when the route checked the key from the head.
public enum SenderRefusal: Error, Sendable, Equatable {
    /// No key, or not a valid one.
    case unauthorized(reason: String)
    /// No keys exist and the caller is not on this machine, or the key's scope does not
    /// reach this dialect or the apps the request names.
    case forbidden(reason: String)
}
