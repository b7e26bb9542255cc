/// The APNs half of a push: the JSON body and the headers Apple reads.
/// (developer.apple.com, "Sending notification requests to APNs".)
public struct APNsMessage: Sendable, Equatable {
    /// The whole JSON body, `{"aps": {…}, …custom keys}`.
    public var payload: [UInt8]
    /// Nil: the app's registered push type.
    public var pushType: APNsPushType?
    /// 10 (immediately) or 5 (power-considerate; required for background pushes). Nil: by type.
    public var priority: Int?
    /// Nil: the device's or app's topic.
    public var topic: String?
    /// Unix seconds after which APNs stops trying; 0 means once only.
    public var expiration: Int?
    public var collapseID: String?
    /// A UUID for `apns-id`; nil lets APNs assign one.
    public var id: String?

    public init(
        payload: [UInt8], pushType: APNsPushType? = nil, priority: Int? = nil, topic: String? = nil,
        expiration: Int? = nil, collapseID: String? = nil, id: String? = nil
    ) {
        self.payload = payload
        self.pushType = pushType
        self.priority = priority
        self.topic = topic
        self.expiration = expiration
        self.collapseID = collapseID
        self.id = id
    }
}

/// The FCM half of a push: the fields of an HTTP v1 `message` other than `token`
/// (`data`, `notification`, `android`, `apns`, …) as one JSON object.
/// (firebase.google.com, "REST Resource: projects.messages".)
public struct FCMMessage: Sendable, Equatable {
    public var fields: [String: JSONValue]

    public init(fields: [String: JSONValue]) {
        self.fields = fields
    }
}

/// How soon a Web Push must reach the browser (RFC 8030 §5.3): the push service may hold a
/// less urgent one back to save the device's battery.
public enum WebPushUrgency: String, Sendable, Equatable, CaseIterable {
    case veryLow = "very-low"
    case low
    case normal
    case high
}

/// The Web Push half of a push: what the browser's service worker receives, and the RFC 8030
/// headers. The payload is plaintext here; delivery encrypts it to the subscription (RFC 8291).
public struct WebPushMessage: Sendable, Equatable {
    /// The push message the service worker reads (`event.data`), before encryption.
    public var payload: [UInt8]
    /// Seconds the push service keeps the message for an offline browser; 0: now or never.
    public var ttl: Int
    public var urgency: WebPushUrgency?
    /// A newer message with the same topic replaces a pending one (≤ 32 base64url characters).
    public var topic: String?

    /// Push services must accept an encrypted body of 4,096 bytes (RFC 8030 §7.2); one
    /// aes128gcm record adds 86 bytes of header, a padding delimiter and a 16-byte tag.
    public static let maximumPayloadLength = 4096 - 86 - 1 - 16

    /// The longest TTL pushgate asks for: autopush bounds it to 30 days.
    public static let maximumTTL = 2_592_000

    public init(payload: [UInt8], ttl: Int, urgency: WebPushUrgency? = nil, topic: String? = nil) {
        self.payload = payload
        self.ttl = ttl
        self.urgency = urgency
        self.topic = topic
    }
}

/// One push to one device. A dialect fills in the half (or both) for the platforms it can
/// reach; the deliverer of the device's platform uses its own half.
public struct Notification: Sendable, Equatable {
    public let appID: AppID
    public let token: DeviceToken
    /// What the dialect already found, behind one reference: a push is copied at every step
    /// of a fan-out of thousands, and the app and subscription inline would make each copy
    /// several times larger, pushes that carry neither included.
    private let found: FoundTarget?
    /// The app `appID` names, when the dialect already found it: delivery sends with it and
    /// does not look it up again. Nil (a push replayed from the outbox): delivery looks it up.
    public var app: RegisteredApp? { found?.app }
    /// `token` as the Web Push subscription the dialect already read and checked it as, so
    /// that delivery does not parse it again. Nil: delivery reads the token itself.
    public var subscription: WebPushSubscription? { found?.subscription }
    /// The stored device, when the push was addressed through the store: a dead token prunes it.
    public var deviceID: Int64?
    /// Nil: the device's or app's default environment.
    public var sandbox: Bool?
    public var apns: APNsMessage?
    public var fcm: FCMMessage?
    public var web: WebPushMessage?

    /// A push that names its app and token only: delivery looks both up.
    public init(
        appID: AppID, token: DeviceToken, deviceID: Int64? = nil, sandbox: Bool? = nil, apns: APNsMessage? = nil,
        fcm: FCMMessage? = nil, web: WebPushMessage? = nil
    ) {
        self.init(
            appID: appID, app: nil, token: token, subscription: nil, deviceID: deviceID, sandbox: sandbox, apns: apns,
            fcm: fcm, web: web)
    }

    /// A push to an app the dialect found in the catalog.
    public init(
        app: RegisteredApp, token: DeviceToken, deviceID: Int64? = nil, sandbox: Bool? = nil, apns: APNsMessage? = nil,
        fcm: FCMMessage? = nil, web: WebPushMessage? = nil
    ) {
        self.init(
            appID: app.id, app: app, token: token, subscription: nil, deviceID: deviceID, sandbox: sandbox, apns: apns,
            fcm: fcm, web: web)
    }

    /// A Web Push to a subscription the dialect read: the token is the subscription's, so the
    /// two cannot disagree.
    public init(
        app: RegisteredApp, subscription: WebPushSubscription, deviceID: Int64? = nil, sandbox: Bool? = nil,
        web: WebPushMessage? = nil
    ) {
        self.init(
            appID: app.id, app: app, token: subscription.token, subscription: subscription, deviceID: deviceID,
            sandbox: sandbox, apns: nil, fcm: nil, web: web)
    }

    private init(
        appID: AppID, app: RegisteredApp?, token: DeviceToken, subscription: WebPushSubscription?, deviceID: Int64?,
        sandbox: Bool?, apns: APNsMessage?, fcm: FCMMessage?, web: WebPushMessage?
    ) {
        self.appID = appID
        self.found = app.map { FoundTarget(app: $0, subscription: subscription) }
        self.token = token
        self.deviceID = deviceID
        self.sandbox = sandbox
        self.apns = apns
        self.fcm = fcm
        self.web = web
    }
}
