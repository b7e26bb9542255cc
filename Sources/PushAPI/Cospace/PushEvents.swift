import Logging
import PushCore

/// `POST /api/push/events`: a backend sends one of the document's push events to every device
/// of a user. Send-side: served as `SenderOnly(PushEvents(…), senders:)`, like every other
/// send endpoint.
public struct PushEvents: SendEndpoint {
    public static let path = "/api/push/events"
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

    public func respond(to request: Request, logger: Logger) throws -> Response {
        try checkAddress(request)
        let event = try CospaceEvent(CospaceJSON.object(request, limit: Self.bodyLimit))
        guard let queued = try publisher.publish(event) else {
            throw CospaceError.notFound(status: "unknown-owner")
        }
        return .json(200, JSONValue.object(["queued": .number(Double(queued))]).encoded())
    }

    public func failureResponse(_ failure: ServiceFailure) -> Response {
        CospaceError.failure(failure)
    }

    public func badRequest(_ reason: String) -> Response {
        CospaceError.invalidPath(reason).response
    }
}
