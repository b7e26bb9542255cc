import Logging
import PushCore

/// Publishing to the bridge (`POST /push/topics/<topic path>`): the push goes, once each, to
/// every destination subscribed with a selector that selects the path. Queued in the durable
/// outbox in one transaction; the answer says how many pushes were queued. Served as
/// `SenderOnly(TopicPublisher(…), senders:)`: only senders may publish.
public struct TopicPublisher: SendEndpoint {
    public static let prefix = "/push/topics"
    public let dialect = SenderDialect.bridge
    /// Two payloads of at most a few KB each.
    static let bodyLimit = 64 * 1024

    private let subscriptions: any BridgeSubscriptionStore
    /// The apps the bridge's destinations belong to: a publish names them, as a pnm2 push
    /// names its AppId.
    private let bridgeApps: BridgeApps
    /// Called after a publish queued something, to wake the outbox worker.
    private let queued: @Sendable () -> Void

    public init(
        subscriptions: any BridgeSubscriptionStore, bridgeApps: BridgeApps,
        queued: @escaping @Sendable () -> Void = {}
    ) {
        self.subscriptions = subscriptions
        self.bridgeApps = bridgeApps
        self.queued = queued
    }

    public func respond(to request: Request, as sender: Sender, context: RequestContext) throws -> Response {
        let topic = try Self.topic(context.parameters)
        let push = try TopicPush(try BridgeRequestBody.object(of: request, limit: Self.bodyLimit))
        // A key limited to apps must reach at least one of the bridge's: otherwise the publish
        // names only apps outside its scope. Subscribers of the other one are left out below.
        if sender.scope.apps != nil {
            let named = [bridgeApps.apns, bridgeApps.fcm].compactMap { $0.flatMap { AppID($0) } }
            if named.allSatisfy({ !sender.scope.allows($0) }) {
                throw SenderRefusal.forbidden(
                    reason: "the sender key \(sender.name) may not push to the bridge's apps "
                        + (named.isEmpty ? "(none is configured)" : named.map(\.rawValue).joined(separator: ", ")))
            }
        }
        let fanOut = try subscriptions.enqueueTopicPush(
            OutboxMessage(source: "bridge:topic", apns: push.apns, fcm: push.fcm),
            subscribedToAnyOf: TopicSelector.canonicalSelectors(selecting: topic), within: sender.scope.apps)
        if fanOut.queued > 0 { queued() }
        // How many subscribers were left out is not said: to a key limited to apps, other
        // tenants' subscribers do not exist. The log line keeps the count for the operator.
        let fields: [String: JSONValue] = ["topic": .string(topic.text), "queued": .number(Double(fanOut.queued))]
        return BridgeResponse.content(.object(fields), correlation: nil, status: 202)
            .noted("\(fanOut.queued) queued, \(fanOut.leftOut) left out of \(sender.name)'s scope")
    }

    /// `/push/topics/{topic...}`: the topic is the rest of the path, `/` and all.
    public var routes: [Router.Route] { [.init(Self.prefix + "/{topic...}", self, methods: ["POST"])] }

    /// The topic path of the route's `{topic...}` tail, percent-decoded.
    static func topic(_ parameters: RouteParameters) throws(BridgeError) -> TopicPath {
        guard parameters["topic"]?.isEmpty == false else {
            throw .invalidTopicPath("name the topic to publish to: POST \(prefix)/<topic path>")
        }
        guard let decoded = parameters.decoded("topic") else {
            throw .invalidTopicPath("the topic path has malformed percent-encoding")
        }
        do throws(TopicPath.ParseError) {
            return try TopicPath(decoded)
        } catch .emptyPart {
            throw .invalidTopicPath("the topic path \(decoded) has an empty part")
        } catch .tooLong {
            throw .invalidTopicPath("the topic path is longer than \(TopicPath.maximumLength) bytes")
        } catch .controlCharacter {
            throw .invalidTopicPath("the topic path contains a control character")
        } catch {
            throw .invalidTopicPath("name the topic to publish to: POST \(prefix)/<topic path>")
        }
    }
}
