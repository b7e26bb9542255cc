import Logging
import PushCore

/// `DELETE /customer_api/v1/instances/{instance}/users/{user}` (the docs' and the Python
/// SDK's path) and `DELETE /user_api/v1/…` (the Node SDK's): removes the devices bound to
/// the user (a backend's "delete this account"). 200 with an empty body, whether or not
/// the user had devices.
public struct BeamsUserAPI: BeamsSendEndpoint {
    public static let prefix = "/customer_api"
    public static let nodePrefix = "/user_api"

    private let store: any BeamsStore & BeamsDeviceStore

    public init(store: any BeamsStore & BeamsDeviceStore) {
        self.store = store
    }

    public func checkAddress(_ request: Request, context: RequestContext) throws {
        _ = try Self.address(context.parameters)
    }

    public func respond(to request: Request, as sender: Sender, context: RequestContext) throws -> Response {
        let (appKey, userID) = try Self.address(context.parameters)
        let instance = try instance(appKey, in: store, for: sender)
        let removed = try store.deleteBeamsUser(appIDs: instance.apps.map(\.id), userID: userID)
        return Response.emptyOK.noted("removed \(removed) devices of a user")
    }

    /// `…/v1/instances/{instance}/users/{user}` under both prefixes; anything else under them
    /// is refused as no such resource.
    public var routes: [Router.Route] {
        let unknown = UnknownPath { _ in throw Self.noSuchResource }
        return [Self.prefix, Self.nodePrefix].flatMap { prefix in
            let user = prefix + "/v1/instances/{instance}/users/{user}"
            return [
                Router.Route(user, self, endpoint: prefix, methods: ["DELETE"]),
                Router.Route(prefix + "/{path...}", unknown),
            ]
        }
    }

    private static let noSuchResource = BeamsError.notFound(
        "No such resource: delete /v1/instances/<instance id>/users/<user id>.")

    /// (instance id, user id) the route took from the path, both percent-decoded.
    static func address(_ parameters: RouteParameters) throws(BeamsError) -> (appKey: String, userID: String) {
        guard let appKey = parameters.decoded("instance"), let userID = parameters.decoded("user") else {
            throw noSuchResource
        }
        guard userID.count <= BeamsUserToken.maximumUserIDLength else {
            throw .invalidField("The user id is longer than \(BeamsUserToken.maximumUserIDLength) characters.")
        }
        return (appKey, userID)
    }
}
