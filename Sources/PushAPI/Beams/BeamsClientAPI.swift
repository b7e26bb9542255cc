import Logging
import PushCore

/// The Pusher Beams client API: app installs register their APNs/FCM token as a client,
/// refresh it, and subscribe to interests. Served under `/client_api`, as the hosted endpoint.
public struct BeamsClientAPI: DialectHandler {
    public var routes: [Router.Route] { BeamsClientPath.routes(prefix: Self.prefix, self) }

    public static let prefix = "/client_api"

    private let store: any BeamsStore
    private let identifiers: RandomIdentifier
    private let gate: NewDeviceGate

    /// - Parameter gate: the new devices each client address may create and each app may
    ///   have (shared by every dialect); every registration here makes a new client.
    public init(store: any BeamsStore, identifiers: RandomIdentifier, gate: NewDeviceGate = .open) {
        self.store = store
        self.identifiers = identifiers
        self.gate = gate
    }

    /// A client id this server cannot have issued is unknown whatever the method.
    public func checkAddress(_ request: Request, context: RequestContext) throws {
        _ = try BeamsClientPath(context.parameters)
    }

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        switch try BeamsClientPath(context.parameters) {
        case .clients:
            return try register(BeamsJSONBody(request), from: request.remoteAddress)
        case .token(let clientID):
            return try replaceToken(clientID: clientID, BeamsJSONBody(request))
        case .interest(let clientID, let name):
            return try setInterest(
                clientID: clientID, name: name, subscribed: request.method == "POST", BeamsJSONBody(request))
        }
    }

    /// `POST /v1/clients`: 201 with the new client.
    private func register(_ body: BeamsJSONBody, from address: String) throws -> Response {
        let appKey = try body.string("app_key")
        let type = try body.platformType()
        let text = try body.string("token")
        guard let instance = try store.beamsInstance(appKey: appKey) else {
            throw BeamsError.unauthorized("app_key is not the key of a registered app.")
        }
        // The iOS and Android SDKs share the instance id: the platform picks the app.
        guard let app = instance.app(for: type.platform) else {
            let present = instance.apps.map { $0.platform.providerName }.joined(separator: " and ")
            throw BeamsError.invalidField(
                "This instance has no \(type.platform.providerName) app: platform_type \(type.rawValue) cannot register "
                    + "under it (its apps are \(present)).")
        }
        let token = try Self.token(text, type: type, app: app)
        let id = try identifiers.uuid()
        try gate.creating(address: address, apps: [app.id], refused: { BeamsError.newDeviceRefused($0) }) {
            try store.addBeamsClient(id: id, appID: app.id, token: token, reportedToken: text)
            return ((), true)
        }
        return Self.client(201, id: id, type: type, token: text)
    }

    /// `PUT /v1/clients/:id/token`: the client's device becomes the new token's. Only an
    /// FCM/GCM client's, as the old Android SDK refreshed it (the old iOS SDK never did): a
    /// client is also a device of the device API, which gives an APNs device's id to whoever
    /// registers its token again, and moving it would hand that token's pushes over.
    private func replaceToken(clientID: String, _ body: BeamsJSONBody) throws -> Response {
        let type = try body.platformType()
        let text = try body.string("token")
        guard let client = try store.beamsClient(id: clientID) else { throw BeamsError.notFound("Client not found.") }
        guard client.app.platform == .fcm else {
            throw BeamsError.invalidField(
                "Only an FCM or GCM client's token is replaced: an APNs client registers again (POST /v1/clients).")
        }
        let token = try Self.token(text, type: type, app: client.app)
        guard try store.replaceBeamsClientToken(clientID: clientID, token: token, reportedToken: text) else {
            throw BeamsError.notFound("Client not found.")
        }
        return Self.client(200, id: clientID, type: type, token: text)
    }

    /// `POST`/`DELETE /v1/clients/:id/interests/:name`: 200, empty, whether or not it changed anything.
    private func setInterest(clientID: String, name: String, subscribed: Bool, _ body: BeamsJSONBody) throws
        -> Response
    {
        let appKey = try body.string("app_key")
        let interest: InterestName
        do {
            interest = try InterestName(validating: name, rule: .clientAPI)
        } catch {
            throw BeamsError.invalidField("The interest name is refused: \(error.description).")
        }
        switch try store.setBeamsInterest(
            clientID: clientID, appKey: appKey, interest: interest.rawValue, subscribed: subscribed)
        {
        case .done: return .emptyOK
        case .unknownClient: throw BeamsError.notFound("Client not found.")
        case .wrongAppKey: throw BeamsError.unauthorized("app_key is not the key of this client's app.")
        case .tooManyInterests:
            throw BeamsError.unprocessable(
                "This client has \(BeamsLimits.interestsPerClient) interests, the most a client may have: "
                    + "unsubscribe from one first.")
        }
    }

    /// The token in its platform's spelling: hex for APNs, as issued for FCM/GCM.
    private static func token(_ text: String, type: BeamsPlatformType, app: BeamsApp) throws(BeamsError)
        -> DeviceToken
    {
        guard type.platform == app.platform else {
            throw .invalidField(
                "platform_type \(type.rawValue) does not match the client, which registered as \(app.platform.providerName).")
        }
        return try token(text, platform: type.platform)
    }

    /// An APNs or FCM token as both Beams APIs take it: hex for APNs, as issued for FCM.
    static func token(_ text: String, platform: Platform) throws(BeamsError) -> DeviceToken {
        guard platform == .apns else {
            guard let token = DeviceToken.fromFCMText(text), token.isPlausible(for: .fcm) else {
                throw .invalidField("token must be an FCM registration token (printable ASCII, no spaces).")
            }
            return token
        }
        guard let token = DeviceToken.fromHex(text), token.isPlausible(for: .apns) else {
            throw .invalidField("token must be an APNs device token in hex (64 or more hex digits).")
        }
        return token
    }

    private static func client(_ status: Int, id: String, type: BeamsPlatformType, token: String) -> Response {
        let body = JSONValue.object(["id": .string(id), "platform_type": .string(type.rawValue), "token": .string(token)])
        return .json(status, body.encoded())
    }
}
