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

    public func checkAddress(_ request: Request) throws {
        _ = try Self.address(request.path)
        guard request.method == "DELETE" else { throw BeamsError.methodNotAllowed(allowed: ["DELETE"]) }
    }

    public func respond(to request: Request, as sender: Sender, logger: Logger) throws -> Response {
        try checkAddress(request)
        let (appKey, userID) = try Self.address(request.path)
        let instance = try instance(appKey, in: store, for: sender)
        let removed = try store.deleteBeamsUser(appIDs: instance.apps.map(\.id), userID: userID)
        var response = Response.emptyOK
        response.logNote = "removed \(removed) devices of a user"
        return response
    }

    /// (instance id, user id) of `…/v1/instances/<instance id>/users/<user id>`, both
    /// percent-decoded.
    static func address(_ path: String) throws(BeamsError) -> (appKey: String, userID: String) {
        let prefix = path.hasPrefix(nodePrefix) ? nodePrefix : prefix
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[1] == "v1", parts[2] == "instances", parts[4] == "users",
            !parts[3].isEmpty, !parts[5].isEmpty,
            let appKey = try? FormParameters.percentDecode(parts[3], plusAsSpace: false),
            let userID = try? FormParameters.percentDecode(parts[5], plusAsSpace: false)
        else {
            throw .notFound("No such resource: delete /v1/instances/<instance id>/users/<user id>.")
        }
        guard userID.count <= BeamsUserToken.maximumUserIDLength else {
            throw .invalidField("The user id is longer than \(BeamsUserToken.maximumUserIDLength) characters.")
        }
        return (appKey, userID)
    }
}
