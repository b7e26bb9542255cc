import Logging
import PushCore

/// What the router hands a dialect's handler beside its request: the route's match, never
/// missing there (moved in, not copied), and the request's logger, whose lines carry its id.
public struct RequestContext: Sendable {
    public let match: RouteMatch
    public let logger: Logger

    public var parameters: RouteParameters { match.parameters }
}
