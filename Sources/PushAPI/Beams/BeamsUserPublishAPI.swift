import Logging
import PushCore

/// `POST /publish_api/v1/instances/{instance}/publishes/users`: one push to the devices bound
/// to 1 to 1,000 users (see `BeamsDeviceAPI`'s `PUT …/user`), each device once, through the
/// durable outbox. The body is a publish's with `users` in place of `interests`; its halves
/// go to their platform's devices as a publish to interests does.
public struct BeamsUserPublishAPI: BeamsSendEndpoint {
    /// Beams' limits: users per publish, and the body (larger than a publish to interests').
    static let maximumUsers = 1_000
    static let maximumBytes = 200 * 1024

    private let store: any BeamsStore & BeamsDeviceStore
    private let identifiers: RandomIdentifier
    private let wakeOutbox: @Sendable () -> Void

    public init(
        store: any BeamsStore & BeamsDeviceStore, identifiers: RandomIdentifier,
        wakeOutbox: @escaping @Sendable () -> Void
    ) {
        self.store = store
        self.identifiers = identifiers
        self.wakeOutbox = wakeOutbox
    }

    /// `POST …/v1/instances/{instance}/publishes/users`.
    public var routes: [Router.Route] {
        let users = BeamsPublishAPI.prefix + "/v1/instances/{instance}/publishes/users"
        return [.init(users, self, endpoint: BeamsPublishAPI.prefix, methods: ["POST"])]
    }

    public func checkAddress(_ request: Request, context: RequestContext) throws {
        _ = try Self.instance(context.parameters)
    }

    public func respond(to request: Request, as sender: Sender, context: RequestContext) throws -> Response {
        let appKey = try Self.instance(context.parameters)
        let instance = try instance(appKey, in: store, for: sender)
        let body = try BeamsJSONBody(request, limit: Self.maximumBytes)
        let users = try Self.users(body.fields["users"])
        // The halves are read as a publish to interests reads them, so that both accept the
        // same payloads; the one interest stands in for the users, and is never looked up.
        var halves = body.fields
        halves["users"] = nil
        halves["interests"] = .array([.string("users")])
        let publish = try BeamsPublish(BeamsJSONBody(fields: halves))
        let (apps, publishID, message) = try publish.addressed(
            to: instance, appKey: appKey, source: "beams:users", identifiers: identifiers)
        let queued = try store.publishToUsers(appIDs: apps, users: users, message: message)
        if queued > 0 { wakeOutbox() }
        return Response.json(200, JSONValue.object(["publishId": .string(publishID)]).encoded())
            .noted("\(publishID) queued for \(queued) devices of \(users.count) users")
    }

    /// `users`: 1 to 1,000 user ids, each 1 to 164 characters without control characters.
    static func users(_ value: JSONValue?) throws(BeamsError) -> [String] {
        guard let value, !value.isNull else {
            throw .unprocessable("users is required: an array of 1 to \(maximumUsers) user ids.")
        }
        guard let array = value.arrayValue, (1...maximumUsers).contains(array.count) else {
            throw .unprocessable("users must be an array of 1 to \(maximumUsers) user ids.")
        }
        var users: [String] = []
        for (index, item) in array.enumerated() {
            guard let user = item.stringValue else { throw .unprocessable("users[\(index)] is not a string.") }
            guard (1...BeamsUserToken.maximumUserIDLength).contains(user.count),
                !user.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else {
                throw .unprocessable(
                    "users[\(index)] is not a user id (1 to \(BeamsUserToken.maximumUserIDLength) characters, "
                        + "no control characters).")
            }
            users.append(user)
        }
        return users
    }

    /// The instance id of `/publish_api/v1/instances/<instance id>/publishes/users`.
    static func instance(_ parameters: RouteParameters) throws(BeamsError) -> String {
        guard let appKey = parameters.decoded("instance") else {
            throw .notFound("No such resource: publish to /v1/instances/<instance id>/publishes/users.")
        }
        return appKey
    }
}

extension BeamsJSONBody {
    /// A body already read, with fields changed.
    init(fields: [String: JSONValue]) {
        self.fields = fields
    }
}
