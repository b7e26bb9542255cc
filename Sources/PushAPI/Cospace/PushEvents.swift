import Logging
import PushCore

/// `POST /api/push/events`: a backend sends one of the document's push events to every device
/// of a user. Send-side: served as `SenderOnly(PushEvents(…), senders:)`, like every other
/// send endpoint.
public struct PushEvents: SendEndpoint {
    public var errors: any ErrorRenderer { CospaceErrors() }

    public static let path = "/api/push/events"
    public let dialect = SenderDialect.cospace
    static let bodyLimit = 64 * 1024

    private let publisher: CospaceEventPublisher

    public init(publisher: CospaceEventPublisher) {
        self.publisher = publisher
    }

    public var routes: [Router.Route] { [.init(Self.path + "/?", self)] }

    /// Only the method: the route is this endpoint's alone.
    public func checkAddress(_ request: Request) throws {
        guard request.method == "POST" else { throw CospaceError.methodNotAllowed(allow: "POST") }
    }

    public func respond(to request: Request, as sender: Sender, logger: Logger) throws -> Response {
        try checkAddress(request)
        let event = try CospaceEvent(CospaceJSON.object(request, limit: Self.bodyLimit))
        guard let fanOut = try publisher.publish(event, within: sender.scope.apps) else {
            throw CospaceError.notFound(status: "unknown-owner")
        }
        // Every device of the user belongs to apps outside the key's scope: the event names
        // only those, so it is refused like a pnm2 push to such an app.
        if fanOut.queued == 0 && fanOut.leftOut > 0 {
            throw sender.refusalOfFanOut(leftOut: fanOut.leftOut)
        }
        var fields: [String: JSONValue] = ["queued": .number(Double(fanOut.queued))]
        if sender.scope.apps != nil { fields["left_out"] = .number(Double(fanOut.leftOut)) }
        var response = Response.json(200, JSONValue.object(fields).encoded())
        response.logNote = "\(fanOut.queued) queued, \(fanOut.leftOut) left out of \(sender.name)'s scope"
        return response
    }
}
