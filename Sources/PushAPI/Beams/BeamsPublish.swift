import PushCore

/// A publish request's body, checked: the interests and each platform's half of the push.
struct BeamsPublish: Equatable {
    /// The publish API's limit per request.
    static let maximumInterests = 100

    var interests: [String]
    var apns: APNsMessage?
    var fcm: FCMMessage?
    var web: BeamsWebPublish?

    init(_ body: BeamsJSONBody) throws(BeamsError) {
        guard let listed = body.fields["interests"], !listed.isNull else {
            throw .unprocessable("interests is required: an array of 1 to \(Self.maximumInterests) interest names.")
        }
        guard let array = listed.arrayValue else { throw .unprocessable("interests must be an array of strings.") }
        guard !array.isEmpty, array.count <= Self.maximumInterests else {
            throw .unprocessable(
                "interests must name 1 to \(Self.maximumInterests) interests; it names \(array.count).")
        }
        var interests: [String] = []
        for (index, value) in array.enumerated() {
            guard let text = value.stringValue else {
                throw .unprocessable("interests must be an array of strings; interests[\(index)] is not a string.")
            }
            // The client API's rules: a name no client can subscribe to is a mistake, not a
            // publish to nobody.
            do {
                interests.append(try InterestName(validating: text).rawValue)
            } catch {
                throw .unprocessable(
                    "interests[\(index)] \(Self.quoted(text)) is not an interest name: \(error.description).")
            }
        }
        self.interests = interests

        switch body.fields["apns"] {
        case nil, .null?: apns = nil
        case .object(let payload)?: apns = try BeamsPushControls.apns(payload)
        default: throw .unprocessable("apns must be an object: the APNs payload ({\"aps\": {…}}).")
        }
        switch body.fields["fcm"] {
        case nil, .null?: fcm = nil
        case .object(let fields)?:
            // FCM v1 takes `data` as strings only; refusing here beats a dead letter per device.
            if let data = fields["data"], !(data.objectValue?.values.allSatisfy({ $0.stringValue != nil }) ?? false) {
                throw .unprocessable("fcm.data must be an object whose values are strings.")
            }
            guard fields["token"] == nil, fields["topic"] == nil, fields["condition"] == nil else {
                throw .unprocessable("fcm must not name its target (token, topic, condition): interests do.")
            }
            fcm = try BeamsPushControls.fcm(fields)
        default: throw .unprocessable("fcm must be an object: the FCM message fields (notification, data, android, …).")
        }
        switch body.fields["web"] {
        case nil, .null?: web = nil
        case .object(let fields)?: web = try BeamsWebPublish(fields)
        default: throw .unprocessable("web must be an object: notification, data, time_to_live.")
        }
        guard apns != nil || fcm != nil || web != nil else {
            throw .unprocessable("At least one of apns, fcm or web is required.")
        }
    }

    /// The apps of `instance` (whose id is `appKey`) that get the publish, the new publish's id,
    /// and its outbox message: each half for its platform's devices. An app gets the publish
    /// when it carries that platform's half (Beams publishes to iOS only, or Android only);
    /// a publish with no half for any of them is refused.
    func addressed(
        to instance: BeamsInstance, appKey: String, source: String, identifiers: RandomIdentifier
    ) throws -> (apps: [AppID], publishID: String, message: OutboxMessage) {
        let apps = instance.apps.filter { app in
            switch app.platform {
            case .apns: return apns != nil
            case .fcm: return fcm != nil
            case .web: return web != nil
            }
        }
        guard !apps.isEmpty else {
            let names = instance.apps.map(\.platform.providerName).joined(separator: " and ")
            // Each half is named by its platform's field: "an apns", "an fcm", "a web".
            let halves = instance.apps.map { ($0.platform == .web ? "a " : "an ") + $0.platform.rawValue }
            throw BeamsError.unprocessable(
                "This instance's devices use \(names): the publish needs \(halves.joined(separator: " or ")) payload.")
        }
        // The id goes into the web half, which the service worker reports with.
        let publishID = "pubid-" + (try identifiers.uuid())
        let webPush = try web?.message(instanceID: appKey, publishID: publishID)
        return (apps.map(\.id), publishID, OutboxMessage(source: source, apns: apns, fcm: fcm, web: webPush))
    }

    /// The name as JSON would quote it, cut to 200 characters: a description stays readable
    /// whatever the caller sent.
    private static func quoted(_ text: String) -> String {
        String(decoding: JSONValue.string(String(text.prefix(200))).encoded(), as: UTF8.self)
    }
}
