import Logging
import PushCore

/// The Pusher Beams publish API: a backend publishes one push to interests; every device
/// subscribed to any of them gets it once, through the durable outbox. The instance id of
/// Beams is the `app_key` of its apps here: one APNs and one FCM app at most, and the
/// publish's `apns` half goes to the first's devices, its `fcm` half to the second's.
/// Served as `SenderOnly(BeamsPublishAPI(…), senders:)`: only senders may publish.
public struct BeamsPublishAPI: BeamsSendEndpoint {
    public static let prefix = "/publish_api"

    private let store: any BeamsStore
    private let identifiers: RandomIdentifier
    private let wakeOutbox: @Sendable () -> Void

    /// - Parameter wakeOutbox: tells the outbox worker rows were queued (it polls otherwise).
    public init(
        store: any BeamsStore, identifiers: RandomIdentifier, wakeOutbox: @escaping @Sendable () -> Void
    ) {
        self.store = store
        self.identifiers = identifiers
        self.wakeOutbox = wakeOutbox
    }

    public func checkAddress(_ request: Request, context: RequestContext) throws {
        _ = try Self.instance(context.parameters)
    }

    public func respond(to request: Request, as sender: Sender, context: RequestContext) throws -> Response {
        let appKey = try Self.instance(context.parameters)
        let instance = try instance(appKey, in: store, for: sender)
        let publish = try BeamsPublish(BeamsJSONBody(request))
        let (apps, publishID, message) = try publish.addressed(
            to: instance, appKey: appKey, source: "beams:publish", identifiers: identifiers)
        let fanOut = try store.publishToInterests(appIDs: apps, interests: publish.interests, message: message)
        if fanOut.queued > 0 || fanOut.continues { wakeOutbox() }
        return Response.json(200, JSONValue.object(["publishId": .string(publishID)]).encoded()).noted(
            fanOut.continues
                ? "\(publishID) queued for \(fanOut.queued) devices so far; the outbox worker queues the rest"
                : "\(publishID) queued for \(fanOut.queued) devices")
    }

    /// `POST …/v1/instances/{instance}/publishes`, or `…/publishes/interests` (the path
    /// today's Beams server SDKs use); anything else under the prefix is refused as no such
    /// resource.
    public var routes: [Router.Route] {
        let publishes = Self.prefix + "/v1/instances/{instance}/publishes"
        return [publishes, publishes + "/interests"].map { .init($0, self, endpoint: Self.prefix, methods: ["POST"]) }
            + [.init(Self.prefix + "/{path...}", UnknownPath { _ in throw Self.noSuchResource })]
    }

    private static let noSuchResource = BeamsError.notFound(
        "No such resource: publish to /v1/instances/<instance id>/publishes.")

    /// The app key the route took from the path.
    static func instance(_ parameters: RouteParameters) throws(BeamsError) -> String {
        guard let appKey = parameters.decoded("instance") else { throw noSuchResource }
        return appKey
    }
}
