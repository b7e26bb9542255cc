import Logging
import PushCore

/// The Push Notification Bridge's message path (`POST /push/notifications`): a client asks
/// (`pnsub`) or stops asking (`pnunsub`) for the updates of a topic selector to be pushed to
/// an `apns://` or `gcm://` destination.
public struct NotificationBridge: DialectHandler {
    public static let path = "/push/notifications"
    /// A message is two short strings and a correlation id; anything near this is not one.
    static let bodyLimit = 16 * 1024

    private let apps: any AppCatalog
    private let subscriptions: any BridgeSubscriptionStore
    private let bridgeApps: BridgeApps
    private let topics: BridgeTopics
    private let devices: (any AcrobitsPushDirectory)?
    private let gate: NewDeviceGate

    /// - Parameters:
    ///   - devices: finds a stored device by its token, asked only for an address past its
    ///     quota (a `pnsub` of a device stored already then goes through).
    ///   - gate: the new devices each client address may create and each app may have
    ///     (shared by every dialect); a `pnsub` that adds a subscription counts as one.
    public init(
        apps: any AppCatalog, subscriptions: any BridgeSubscriptionStore, bridgeApps: BridgeApps,
        topics: BridgeTopics = .unrestricted, devices: (any AcrobitsPushDirectory)? = nil,
        gate: NewDeviceGate = .open
    ) {
        self.devices = devices
        self.gate = gate
        self.apps = apps
        self.subscriptions = subscriptions
        self.bridgeApps = bridgeApps
        self.topics = topics
    }

    /// `/push/notifications` itself, and below it no such endpoint, in the bridge's shape.
    public var routes: [Router.Route] {
        [
            .init(Self.path + "/?", self, methods: ["POST"]),
            .init(
                Self.path + "/{path...}", UnknownPath { throw BridgeError.notFound($0.path) }),
        ]
    }

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        let object = try BridgeRequestBody.object(of: request, limit: Self.bodyLimit)
        let message = try BridgeMessage.parse(object)
        // From here on every answer carries the message's correlation, failures too.
        do {
            try perform(message, from: request.remoteAddress)
            return BridgeResponse.content(message.echo, correlation: message.correlation)
        } catch let error as BridgeError {
            throw BridgeMessage.Refusal(error: error, correlation: message.correlation)
        } catch {
            throw CorrelatedFailure(failure: ServiceFailure(error), correlation: message.correlation)
        }
    }

    private func perform(_ message: BridgeMessage, from address: String) throws {
        let destination = try BridgeDestination(message.destination)
        let selector: TopicSelector
        do throws(TopicSelector.ParseError) {
            selector = try TopicSelector(parsing: message.topic)
        } catch {
            throw BridgeError.invalidSelector(error)
        }
        let appID = try app(for: destination.platform)
        switch message.operation {
        case .subscribe:
            // Unsubscribing stays open for every topic: it only ever removes.
            guard topics.admits(selector) else { throw BridgeError.topicNotServed(selector.canonical) }
            try gate.creating(
                address: address, apps: [appID],
                alreadyStored: { try devices?.storedDevices([(appID, destination.token)]).first! != nil },
                refused: { BridgeError.newDeviceRefused($0) }
            ) {
                do {
                    let added = try subscriptions.subscribe(
                        appID: appID, token: destination.token, reportedToken: message.destination,
                        selector: selector.canonical)
                    // A repeated pnsub made nothing new.
                    return ((), added)
                } catch let limit as TooManySubscriptions {
                    throw BridgeError.tooManySubscriptions(limit: limit.limit)
                }
            }
        case .unsubscribe:
            // Unsubscribing what was never subscribed leaves the wanted state: a success, so
            // that a client retrying after a lost response is not told it failed.
            _ = try subscriptions.unsubscribe(appID: appID, token: destination.token, selector: selector.canonical)
        }
    }

    /// The registered app behind `platform`'s destinations, or why there is none.
    private func app(for platform: Platform) throws -> AppID {
        let scheme = platform == .apns ? "apns://" : "gcm://"
        let refusal = "this bridge does not serve \(scheme) destinations"
        let (value, key) = bridgeApps.configured(for: platform)
        guard let value, !value.isEmpty else {
            throw BridgeError.notConfigured(client: refusal, operator: "\(key) is not set: set it to the id of a registered \(platform.rawValue) app")
        }
        guard let appID = AppID(value) else {
            throw BridgeError.notConfigured(client: refusal, operator: "\(key)=\(value) is not a valid app id")
        }
        guard let registered = try apps.platform(of: appID) else {
            throw BridgeError.notConfigured(client: refusal, operator: "\(key) names \(appID), which is not registered (pushgate apps add)")
        }
        guard registered == platform else {
            throw BridgeError.notConfigured(client: refusal, operator: "\(key) names \(appID), a \(registered.rawValue) app, not \(platform.rawValue)")
        }
        return appID
    }
}
