/// Which route a request goes to, decided once from its raw path by the router before the body
/// is read. It travels with the request (`Request.route`): the lane choice, the body limit's
/// refusal, the metrics label and the handler all read it instead of matching again.
public struct RouteMatch: Sendable, Equatable {
    /// The route's place in the table that matched it; nil when no route matched.
    public let index: Int?
    /// The route's metrics label (`/token`, `/pnm2`, …; `none` for no route): bounded, unlike
    /// the raw path, which carries tokens and usernames.
    public let endpoint: String
    /// The values of the route's `{name}` segments, still percent-encoded as sent.
    public let parameters: RouteParameters
    /// Why the path itself is refused (one nginx would read otherwise), when it is; the
    /// route is then only the dialect whose shape the refusal takes.
    public let pathRefusal: String?
    /// The lane the request waits in, as the route chose it from the head; nil: none.
    public var lane: RequestLane?
    /// The sender check of a send-side route that makes it from the head, before choosing a
    /// lane (pnm2's sends: a caller without send rights must not take an upstream lane's
    /// slot), so that the handler reads it instead of asking the key store again; nil when
    /// the route made none (the handler checks).
    public var sender: Result<Sender, SenderRefusal>?
    /// The address check of a route that makes it from the head to choose a lane (Matrix's
    /// notify), read by the handler instead of checking again; nil when the route made none.
    public var addressAllowed: Bool?

    public init(
        index: Int?, endpoint: String, parameters: RouteParameters = RouteParameters(), pathRefusal: String? = nil
    ) {
        self.index = index
        self.endpoint = endpoint
        self.parameters = parameters
        self.pathRefusal = pathRefusal
    }

    /// No route, no refusal: answered 404.
    public static let none = RouteMatch(index: nil, endpoint: "none")
}

/// A route's path parameters by name: a handful at most, so a list beats a dictionary.
public struct RouteParameters: Sendable, Equatable {
    private var pairs: [(name: String, value: Substring)] = []

    public init() {}

    public mutating func append(_ name: String, _ value: Substring) {
        pairs.append((name, value))
    }

    /// The raw (percent-encoded) value of the `{name}` segment, or of the `{name...}` tail.
    public subscript(name: String) -> Substring? {
        pairs.first { $0.name == name }?.value
    }

    public var count: Int { pairs.count }

    /// The value of `name` percent-decoded (`+` kept), nil when absent or not validly encoded.
    public func decoded(_ name: String) -> String? {
        self[name].flatMap { try? FormParameters.percentDecode($0, plusAsSpace: false) }
    }

    public static func == (lhs: RouteParameters, rhs: RouteParameters) -> Bool {
        lhs.pairs.map(\.name) == rhs.pairs.map(\.name) && lhs.pairs.map(\.value) == rhs.pairs.map(\.value)
    }
}

/// A request refused at the edge, before any handler read it: the router renders it in the
/// shape of the dialect the request was routed to.
public enum EdgeRefusal: Error, Sendable, Equatable {
    /// The body is over the server's limit of `limit` bytes (`bytes` declared or read).
    case bodyTooLarge(bytes: Int, limit: Int)
    /// The request's lane had no room for it within its bounds (queue full, or waited too long).
    case busy
}
