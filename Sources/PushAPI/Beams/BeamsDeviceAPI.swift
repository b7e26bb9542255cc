import Logging
import PushCore

/// The Pusher Beams device API that today's SDKs (iOS 4, Android 1.9, web 2) call: register a
/// device, refresh its token, keep its interests and metadata, bind it to an authenticated
/// user, delete it. A device here is a Beams client, the same row as one the old client API
/// registered, so an install is one device whichever API it used. No credential but the
/// device id, except the user's Beams token.
///
/// Status codes are the ones the SDKs act on: 404 makes iOS and Android register the device
/// again and retry, 400 drops the job, anything else is retried for ever; every error has
/// Beams' `{"error","description"}` body.
public struct BeamsDeviceAPI: DialectHandler {
    /// What this copy answers, as its route gave it (see `routes`; only copies are served).
    private var shape = BeamsDevicePath.Shape.devices

    /// Interests one list page holds at most (and by default).
    static let interestsPerPage = 100

    public typealias Store = BeamsStore & BeamsDeviceStore & BeamsTokenSecretStore & AppCatalog & AcrobitsPushDirectory

    private let store: any Store
    private let identifiers: RandomIdentifier
    private let userToken: BeamsUserToken
    private let subscriptions: WebPushSubscriptionCheck
    private let vapidPublicKey: @Sendable (_ privateKeyPEM: String) -> String?
    private let gate: NewDeviceGate

    /// - Parameters:
    ///   - verifiedClaims: the claims of a token whose HS256 signature is the secret's
    ///     (PushCrypto's `HS256.verifiedClaims`).
    ///   - now: unix seconds, for the tokens' `exp`.
    ///   - subscriptions: what a web device's subscription must be (its push service on the
    ///     allow-list, its keys usable).
    ///   - vapidPublicKey: the base64url public key of a VAPID private key (PushCrypto's
    ///     `VAPIDKey`), nil when the PEM is not one.
    ///   - gate: the new devices each client address may create and each app may have
    ///     (shared by every dialect).
    public init(
        store: any Store, identifiers: RandomIdentifier,
        verifiedClaims: @escaping @Sendable (_ token: String, _ secret: String) -> [String: JSONValue]?,
        now: @escaping @Sendable () -> Int64, subscriptions: WebPushSubscriptionCheck,
        vapidPublicKey: @escaping @Sendable (_ privateKeyPEM: String) -> String?, gate: NewDeviceGate = .open
    ) {
        self.gate = gate
        self.store = store
        self.identifiers = identifiers
        self.subscriptions = subscriptions
        self.vapidPublicKey = vapidPublicKey
        userToken = BeamsUserToken(secrets: store, verifiedClaims: verifiedClaims, now: now)
    }

    /// Its resources under both prefixes (the Android SDK's host override replaces
    /// `/device_api/v1/` too), each answered by a copy that knows which it is.
    public var routes: [Router.Route] {
        BeamsDevicePath.routes { shape in
            var answering = self
            answering.shape = shape
            return answering
        }
    }

    /// A path naming no resource is refused whatever the method.
    public func checkAddress(_ request: Request, context: RequestContext) throws {
        _ = try BeamsDevicePath(shape, context.parameters)
    }

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        let path = try BeamsDevicePath(shape, context.parameters)
        switch path.resource {
        case .vapidPublicKey:
            return try vapidKey(path)
        case .devices:
            return try register(path, BeamsJSONBody(request), from: request.remoteAddress)
        case .device(let id):
            if request.method == "DELETE" { return try delete(path, id: id) }
            guard let id else { throw BeamsError.notFound("Could not find the device.") }
            return try device(path, id: id)
        case .token(let id):
            return try replaceToken(path, id: id, BeamsJSONBody(request))
        case .metadata(let id):
            let body = try BeamsJSONBody(request)
            let device = try self.device(path, id)
            guard try store.setBeamsDeviceMetadata(id: device.client.id, metadata: Self.compact(body.fields)) else {
                throw BeamsError.notFound("Could not find the device.")
            }
            return .emptyOK
        case .user(let id):
            return try bindUser(path, id: id, request)
        case .interests(let id):
            if request.method == "GET" { return try interests(path, id: id, query: request.query) }
            // A full set of 5,000 names is over 800 KB: the server's body limit applies.
            return try replaceInterests(path, id: id, BeamsJSONBody(request, limit: Int.max))
        case .interest(let id, let name):
            return try setInterest(path, id: id, name: name, subscribed: request.method == "POST")
        }
    }

    /// `POST …/devices/{platform}`: `{"id", "initialInterestSet"}`; a token registered before
    /// gets its client back (iOS registers on every launch).
    private func register(_ path: BeamsDevicePath, _ body: BeamsJSONBody, from address: String) throws -> Response {
        let instance = try self.instance(path)
        guard let platform = path.platform, let app = instance.app(for: platform) else {
            throw BeamsError.invalidField(
                "This instance has no \(Self.name(path.platform)) app to register devices with.")
        }
        guard let text = try? body.string("token") else {
            throw BeamsError.invalidField("Missing \(Self.name(platform)) token.")
        }
        let token = try self.token(text, platform: platform)
        let metadata = try Self.metadata(body.fields["metadata"])
        // Beams' web device ids say what they are; the web SDK does not look.
        let newID = (platform == .web ? "web-" : "") + (try identifiers.uuid())
        let registration = try gate.creating(
            address: address, apps: [app.id], alreadyStored: { try store.storedDevices([(app.id, token)]).first! != nil },
            refused: { BeamsError.newDeviceRefused($0) }
        ) {
            let registration = try store.registerBeamsDevice(
                newID: newID, appID: app.id, token: token, reportedToken: text, metadata: metadata)
            // A token registered before got its client back: nothing new was made.
            return (registration, registration.id == newID)
        }
        let body = JSONValue.object([
            "id": .string(registration.id),
            "initialInterestSet": .array(registration.interests.map(JSONValue.string)),
        ])
        return .json(200, body.encoded())
    }

    /// `GET …/devices/{platform}/{id}`: the device as Beams describes it.
    private func device(_ path: BeamsDevicePath, id: String) throws -> Response {
        let device = try self.device(path, id)
        var fields: [String: JSONValue] = ["id": .string(device.client.id)]
        if let userID = device.userID { fields["userId"] = .string(userID) }
        let metadata = device.metadata.flatMap { try? JSONValue.parse(Array($0.utf8)) } ?? .object([:])
        fields["metadata"] = metadata
        return .json(200, JSONValue.object(fields).encoded())
    }

    /// `DELETE …/devices/{platform}/{id}`: 200 whether or not the device existed, or its id
    /// could be one (the Android SDK retries any other status for ever, the web SDK's `stop()`
    /// fails on it).
    private func delete(_ path: BeamsDevicePath, id: String?) throws -> Response {
        if let id, let device = try findDevice(path, id) {
            _ = try store.deleteBeamsDevice(id: device.client.id)
        }
        return .emptyOK
    }

    /// `PUT …/devices/fcm/{id}/token` `{"token"}`: the device moves to the new token. Only an
    /// FCM device's: the Android SDK refreshes its token so, while iOS and the web SDK register
    /// again and never call it. An APNs device's id is given to whoever registers its token
    /// again (iOS does at every launch), so a token that moved it would let anyone who knows
    /// the token take its pushes, its user's included (see docs/security.md).
    private func replaceToken(_ path: BeamsDevicePath, id: String, _ body: BeamsJSONBody) throws -> Response {
        guard path.platform == .fcm else {
            throw BeamsError.notFound(
                "No such resource: only an FCM device's token is replaced (iOS and web devices register again).")
        }
        guard let text = try? body.string("token") else {
            throw BeamsError.invalidField("Missing token field with the \(Self.name(path.platform)) token.")
        }
        let device = try self.device(path, id)
        let token = try self.token(text, platform: device.client.app.platform)
        guard try store.replaceBeamsClientToken(clientID: device.client.id, token: token, reportedToken: text) else {
            throw BeamsError.notFound("Could not find the device.")
        }
        return .emptyOK
    }

    /// `PUT …/devices/{platform}/{id}/user` with `Authorization: Bearer <Beams token>`, no body.
    private func bindUser(_ path: BeamsDevicePath, id: String, _ request: Request) throws -> Response {
        let instance = try self.instance(path)
        let userID = try userToken.userID(of: request, instance: instance)
        let device = try self.device(path, id)
        switch try store.setBeamsUser(clientID: device.client.id, userID: userID) {
        case .done: return .emptyOK
        case .unknownDevice: throw BeamsError.notFound("Could not find the device.")
        case .otherUser: throw BeamsError.invalidField("A User Id is already associated with this device.")
        case .tooManyDevices:
            throw BeamsError.unprocessable(
                "User already has reached the maximum of \(BeamsLimits.devicesPerUser) devices.")
        }
    }

    /// `GET …/interests?limit=N&cursor=C`: `{"interests", "responseMetadata": {"nextCursor"?}}`.
    private func interests(_ path: BeamsDevicePath, id: String, query: String) throws -> Response {
        guard let parameters = try? FormParameters.parse(query) else {
            throw BeamsError.invalidField("The query string is not validly percent-encoded.")
        }
        var limit = Self.interestsPerPage
        if let text = parameters["limit"] {
            guard let value = Int(text), (1...Self.interestsPerPage).contains(value) else {
                throw BeamsError.invalidField("limit must be a whole number from 1 to \(Self.interestsPerPage).")
            }
            limit = value
        }
        let cursor = parameters["cursor"]
        if let cursor, (try? InterestName(validating: cursor)) == nil {
            throw BeamsError.invalidField("cursor is not one this server gave (it is the last interest of a page).")
        }
        let device = try self.device(path, id)
        // One more than asked: whether a next page exists.
        guard var names = try store.beamsInterests(clientID: device.client.id, after: cursor, limit: limit + 1) else {
            throw BeamsError.notFound("Could not find the device.")
        }
        var metadata: [String: JSONValue] = [:]
        if names.count > limit {
            names.removeLast(names.count - limit)
            metadata["nextCursor"] = names.last.map(JSONValue.string)
        }
        let body = JSONValue.object([
            "interests": .array(names.map(JSONValue.string)), "responseMetadata": .object(metadata),
        ])
        return .json(200, body.encoded())
    }

    /// `PUT …/interests` `{"interests": [...]}`: the device's interests become exactly those.
    private func replaceInterests(_ path: BeamsDevicePath, id: String, _ body: BeamsJSONBody) throws -> Response {
        guard let listed = body.fields["interests"]?.arrayValue else {
            throw BeamsError.invalidField("interests must be an array of interest names.")
        }
        var names: [String] = []
        var seen = Set<String>()
        for (index, item) in listed.enumerated() {
            guard let text = item.stringValue else {
                throw BeamsError.invalidField("interests[\(index)] is not a string.")
            }
            let name = try Self.interestName(text)
            if seen.insert(name.rawValue).inserted { names.append(name.rawValue) }
        }
        guard names.count <= BeamsLimits.interestsPerClient else { throw Self.interestSetTooLarge }
        let device = try self.device(path, id)
        guard try store.replaceBeamsInterests(clientID: device.client.id, interests: names) else {
            throw BeamsError.notFound("Could not find the device.")
        }
        return .emptyOK
    }

    /// `POST`/`DELETE …/interests/{name}`: no body; 200 whether or not it changed anything.
    private func setInterest(_ path: BeamsDevicePath, id: String, name: String, subscribed: Bool) throws -> Response {
        let interest = try Self.interestName(name)
        let device = try self.device(path, id)
        switch try store.setBeamsInterest(
            clientID: device.client.id, appKey: device.client.app.appKey, interest: interest.rawValue,
            subscribed: subscribed)
        {
        case .done: return .emptyOK
        case .unknownClient, .wrongAppKey: throw BeamsError.notFound("Could not find the device.")
        case .tooManyInterests: throw Self.interestSetTooLarge
        }
    }

    private static let interestSetTooLarge = BeamsError.invalidField(
        "Interest set too large: only \(BeamsLimits.interestsPerClient) interests per device are allowed.")

    private func instance(_ path: BeamsDevicePath) throws -> BeamsInstance {
        guard let instance = try store.beamsInstance(appKey: path.instanceID) else { throw BeamsError.instanceNotFound }
        return instance
    }

    /// The device of the path: registered under the path's instance and platform, else a 404
    /// (the SDKs then register again).
    private func device(_ path: BeamsDevicePath, _ id: String) throws -> BeamsDevice {
        guard let device = try findDevice(path, id) else { throw BeamsError.notFound("Could not find the device.") }
        return device
    }

    private func findDevice(_ path: BeamsDevicePath, _ id: String) throws -> BeamsDevice? {
        guard let device = try store.beamsDevice(id: id), device.client.app.appKey == path.instanceID,
            device.client.app.platform == path.platform
        else { return nil }
        return device
    }

    private static func interestName(_ text: String) throws(BeamsError) -> InterestName {
        do {
            return try InterestName(validating: text)
        } catch {
            throw .invalidField("Invalid interest name: \(error.description).")
        }
    }

    /// `GET …/web-vapid-public-key`: `{"vapidPublicKey"}` of the instance's web app, the
    /// `applicationServerKey` the web SDK subscribes with.
    private func vapidKey(_ path: BeamsDevicePath) throws -> Response {
        let instance = try self.instance(path)
        guard let web = instance.app(for: .web), let app = try store.app(id: web.id),
            case .webPush(let pem, _) = app.credentials
        else { throw BeamsError.notFound("This instance has no web app.") }
        guard let key = vapidPublicKey(pem) else { throw BeamsVAPIDKeyUnreadable(appID: web.id) }
        return .json(200, JSONValue.object(["vapidPublicKey": .string(key)]).encoded())
    }

    /// The token in its platform's spelling: hex for APNs, as issued for FCM, the base64 of
    /// the subscription's JSON for the web (`btoa(JSON.stringify(subscription))`), whose push
    /// service must be one pushgate may send to and whose keys must be usable.
    private func token(_ text: String, platform: Platform) throws(BeamsError) -> DeviceToken {
        guard platform == .web else { return try BeamsClientAPI.token(text, platform: platform) }
        switch subscriptions.subscription(fromBase64: text) {
        case .success(let subscription):
            return subscription.token
        case .failure(.notASubscription):
            throw .invalidField(
                "token must be the base64 of the browser's PushSubscription JSON (endpoint, keys.p256dh of 65 bytes, keys.auth of 16)."
            )
        case .failure(.refused(let reason)):
            throw .invalidField("The subscription is refused: \(reason).")
        }
    }

    /// The registration's `metadata` as stored: compact JSON of an object, nil when absent.
    private static func metadata(_ value: JSONValue?) throws(BeamsError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .object(let fields)?: return compact(fields)
        default: throw .invalidField("metadata must be an object.")
        }
    }

    private static func compact(_ fields: [String: JSONValue]) -> String {
        String(decoding: JSONValue.object(fields).encoded(), as: UTF8.self)
    }

    private static func name(_ platform: Platform?) -> String {
        switch platform {
        case .apns?: return "APNs"
        case .fcm?: return "FCM"
        case .web?: return "web"
        case nil: return "such"
        }
    }
}

/// A web app whose stored VAPID key cannot be read: the operator's to fix (`apps add`), a
/// 500 to the browser.
struct BeamsVAPIDKeyUnreadable: Error, CustomStringConvertible {
    let appID: AppID
    var description: String { "the VAPID key of app \(appID) cannot be read" }
}
