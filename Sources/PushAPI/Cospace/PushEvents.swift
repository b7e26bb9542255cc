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

    /// Over the server's body limit: the same refusal as over this dialect's own.
    public func bodyTooLarge(_ request: Request, bytes: Int, limit: Int) -> Response {
        CospaceError.bodyTooLarge(limit: limit).response
    }

    public func checkAddress(_ request: Request) throws {
        guard request.path == Self.path || request.path == Self.path + "/" else {
            throw CospaceError.notFound(status: "not-found")
        }
        guard request.method == "POST" else { throw CospaceError.methodNotAllowed(allow: "POST") }
    }

    public func refusal(_ refusal: SenderRefusal) -> any DialectError {
        switch refusal {
        case .unauthorized: return CospaceError.unauthorized(challenge: SenderAuthorization.challenge)
        case .forbidden: return CospaceError.forbidden
        }
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
            throw refusal(sender.refusalOfFanOut(leftOut: fanOut.leftOut))
        }
        var fields: [String: JSONValue] = ["queued": .number(Double(fanOut.queued))]
        if sender.scope.apps != nil { fields["left_out"] = .number(Double(fanOut.leftOut)) }
        var response = Response.json(200, JSONValue.object(fields).encoded())
        response.logNote = "\(fanOut.queued) queued, \(fanOut.leftOut) left out of \(sender.name)'s scope"
        return response
    }

    public func failureResponse(_ failure: ServiceFailure) -> Response {
        CospaceError.failure(failure)
    }

    public func badRequest(_ reason: String) -> Response {
        CospaceError.invalidPath(reason).response
    }
}
