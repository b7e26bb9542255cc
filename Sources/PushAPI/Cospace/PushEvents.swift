import PushCore

/// `POST /api/push/events`: a backend sends one of the document's push events to every device
/// of a user. Send-side: guarded by sender keys like every other send endpoint.
public struct PushEvents: RequestHandler {
    public static let path = "/api/push/events"
    static let bodyLimit = 64 * 1024

    private let senders: SenderAuthorization
    private let publisher: CospaceEventPublisher

    public init(senders: SenderAuthorization, publisher: CospaceEventPublisher) {
        self.senders = senders
        self.publisher = publisher
    }

    /// Over the server's body limit: the same refusal as over this dialect's own.
    public func bodyTooLarge(_ request: Request, bytes: Int, limit: Int) -> Response {
        CospaceError.bodyTooLarge(limit: limit).response
    }

    public func handle(_ request: Request) -> Response {
        do {
            guard request.path == Self.path || request.path == Self.path + "/" else {
                throw CospaceError.notFound(status: "not-found")
            }
            guard request.method == "POST" else { throw CospaceError.methodNotAllowed(allow: "POST") }
            switch senders.authorize(request) {
            case .allowed: break
            case .unauthorized: throw CospaceError.unauthorized(challenge: SenderAuthorization.challenge)
            case .forbidden: throw CospaceError.forbidden
            case .unavailable(let error): return .internalError(error)
            }
            let event = try CospaceEvent(CospaceJSON.object(request, limit: Self.bodyLimit))
            guard let queued = try publisher.publish(event) else {
                throw CospaceError.notFound(status: "unknown-owner")
            }
            return .json(200, JSONValue.object(["queued": .number(Double(queued))]).encoded())
        } catch let error as CospaceError {
            return error.response
        } catch {
            return .internalError(error)
        }
    }
}
