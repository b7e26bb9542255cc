import ArgumentParser
import PushCore

/// `pushgate send`'s per-push controls, checked against the app's platform and Apple's or
/// Google's rules before anything is sent. Every refusal names the option.
struct SendControls: ParsableArguments {
    @Option(name: .customLong("push-type"), help: "APNs: \(APNsPushType.names). Default: the app's.") var pushType: String?
    @Option(help: "APNs: the topic. Default: the app's, or the push type's for the app's bundle id.") var topic: String?
    @Option(help: "APNs: apns-priority, 10 (at once), 5 (power-considerate) or 1. Default: by push type.") var priority: Int?
    @Option(help: "APNs: apns-expiration, a Unix time in seconds; 0 delivers once only.") var expiration: Int?
    @Option(name: .customLong("collapse-id"), help: "APNs: apns-collapse-id (at most 64 bytes).") var collapseID: String?
    @Option(help: "FCM and web: how long the push service keeps the push for an offline device, in seconds.") var ttl: Int?
    @Option(name: .customLong("collapse-key"), help: "FCM: the collapse key; a newer push with it replaces a pending one.") var collapseKey: String?
    @Option(name: .customLong("fcm-priority"), help: "FCM: normal or high.") var fcmPriority: String?

    private var apnsOptions: [(String, Bool)] {
        [
            ("--push-type", pushType != nil), ("--topic", topic != nil), ("--priority", priority != nil),
            ("--expiration", expiration != nil), ("--collapse-id", collapseID != nil),
        ]
    }

    private var fcmOptions: [(String, Bool)] {
        [("--ttl", ttl != nil), ("--collapse-key", collapseKey != nil), ("--fcm-priority", fcmPriority != nil)]
    }

    /// `message` with the APNs options set, for `app`. A push type other than the app's goes to
    /// that type's topic for the app's bundle id, unless --topic names one.
    func applied(to message: APNsMessage, app: RegisteredApp) throws -> APNsMessage {
        if let (option, _) = fcmOptions.first(where: { $0.1 }) {
            throw CommandFailure("\(option) is for FCM apps; \(app.id) is an APNs app")
        }
        var message = message
        let appType = app.apnsPushType ?? .alert
        let type = try pushType.map(AppRegistration.pushType) ?? appType
        if pushType != nil { message.pushType = type }
        if let topic {
            guard !topic.isEmpty, topic.utf8.count <= 255 else { throw CommandFailure("--topic must be 1 to 255 bytes") }
            try AppRegistration.requireTopic(topic, for: type)
            message.topic = topic
        } else if type != appType {
            let bundleID = appType.bundleID(topic: app.apnsTopic ?? app.id.rawValue)
            guard let derived = type.topic(bundleID: bundleID) else {
                throw CommandFailure("--push-type \(type.rawValue) needs --topic: the topic in the MDM push certificate")
            }
            message.topic = derived
        }
        message.priority = priority
        message.expiration = expiration
        message.collapseID = collapseID
        if let refusal = APNsControlRefusal.check(message, pushType: type) {
            let option: String
            switch refusal.control {
            case .collapseID: option = "--collapse-id"
            case .priority: option = "--priority"
            case .expiration: option = "--expiration"
            }
            throw CommandFailure("\(option) \(refusal.detail)")
        }
        return message
    }

    /// `message` with --ttl as the Web Push TTL; the other options are APNs' or FCM's.
    func applied(to message: WebPushMessage, app: RegisteredApp) throws -> WebPushMessage {
        if let (option, _) = apnsOptions.first(where: { $0.1 }) {
            throw CommandFailure("\(option) is for APNs apps; \(app.id) is a web app")
        }
        for (option, given) in fcmOptions.dropFirst() where given {
            throw CommandFailure("\(option) is for FCM apps; \(app.id) is a web app")
        }
        var message = message
        if let ttl {
            guard (0...WebPushMessage.maximumTTL).contains(ttl) else {
                throw CommandFailure("--ttl must be 0 to \(WebPushMessage.maximumTTL) seconds for a web app, not \(ttl)")
            }
            message.ttl = ttl
        }
        return message
    }

    /// `message` with the FCM options set in its `android` object.
    func applied(to message: FCMMessage, app: RegisteredApp) throws -> FCMMessage {
        if let (option, _) = apnsOptions.first(where: { $0.1 }) {
            throw CommandFailure("\(option) is for APNs apps; \(app.id) is an FCM app")
        }
        var controls = FCMAndroidControls(ttl: ttl, collapseKey: collapseKey)
        if let fcmPriority {
            guard let priority = FCMAndroidControls.Priority(name: fcmPriority) else {
                throw CommandFailure("--fcm-priority must be normal or high, not \(fcmPriority)")
            }
            controls.priority = priority
        }
        if let (control, detail) = controls.refusal() {
            throw CommandFailure("\(control == .ttl ? "--ttl" : "--collapse-key") \(detail)")
        }
        return controls.applied(to: message)
    }
}
