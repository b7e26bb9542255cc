import Logging
import PushCore

/// `POST /api/push/events`: a backend sends one of the document's push events to every device
/// of a user. Send-side: served as `SenderOnly(PushEvents(…), senders:)`, like every other
/// send endpoint.
public struct PushEvents: SendEndpoint {
    public static let path = "/api/push/events"
    public let dialect = SenderDialect.cospace
    static let bodyLimit = 64 * 1024

    private let publisher: CospaceEventPublisher

    public init(publisher: CospaceEventPublisher) {
        self.publisher = publisher
    }

    public var routes: [Router.Route] { [.init(Self.path + "/?", self, methods: ["POST"])] }

    public func respond(to request: Request, as sender: Sender, context: RequestContext) throws -> Response {
        let event = try CospaceEvent(CospaceJSON.object(request, limit: Self.bodyLimit))
        guard let fanOut = try publisher.publish(event, within: sender.scope.apps) else {
            throw CospaceError.notFound(status: "unknown-owner")
        }
        // To a key limited to apps, a user none of whose devices it reaches (other tenants'
        // devices only, or none at all) does not exist: the answer of an unknown owner, and
        // no count of what it left out, which would tell it about other tenants' devices.
        // The log line keeps the count for the operator.
        let answer =
            sender.scope.apps != nil && fanOut.queued == 0
            ? CospaceError.notFound(status: "unknown-owner").response
            : Response.json(200, JSONValue.object(["queued": .number(Double(fanOut.queued))]).encoded())
        return answer.noted("\(fanOut.queued) queued, \(fanOut.leftOut) left out of \(sender.name)'s scope")
    }
}
