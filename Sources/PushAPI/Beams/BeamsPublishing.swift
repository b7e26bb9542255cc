import Logging
import PushCore

/// The publish API's two endpoints under one prefix: `…/publishes/users` to users, anything
/// else to interests (each behind `SenderOnly`).
public struct BeamsPublishing: DialectHandler {
    private let interests: any DialectHandler
    private let users: any DialectHandler

    public init(interests: any DialectHandler, users: any DialectHandler) {
        self.interests = interests
        self.users = users
    }

    private func handler(_ request: Request) -> any DialectHandler {
        BeamsUserPublishAPI.serves(request.path) ? users : interests
    }

    public func respond(to request: Request, logger: Logger) throws -> Response {
        try handler(request).respond(to: request, logger: logger)
    }

    public func failureResponse(_ failure: ServiceFailure) -> Response {
        interests.failureResponse(failure)
    }

    public func badRequest(_ reason: String) -> Response {
        interests.badRequest(reason)
    }

    public func bodyTooLarge(_ request: Request, bytes: Int, limit: Int) -> Response {
        handler(request).bodyTooLarge(request, bytes: bytes, limit: limit)
    }
}
