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

/// One push to one device. A dialect fills in the half (or both) for the platforms it can
/// reach; the deliverer of the device's platform uses its own half.
public struct Notification: Sendable, Equatable {
    public var appID: AppID
    public var token: DeviceToken
    /// The stored device, when the push was addressed through the store: a dead token prunes it.
    public var deviceID: Int64?
    /// Nil: the device's or app's default environment.
    public var sandbox: Bool?
    public var apns: APNsMessage?
    public var fcm: FCMMessage?

    public init(
        appID: AppID, token: DeviceToken, deviceID: Int64? = nil, sandbox: Bool? = nil, apns: APNsMessage? = nil,
        fcm: FCMMessage? = nil
    ) {
        self.appID = appID
        self.token = token
        self.deviceID = deviceID
        self.sandbox = sandbox
        self.apns = apns
        self.fcm = fcm
    }
}
