import PushCore

/// What reaches the phone for each verb (docs/api/pnm2.md's table). Every push carries its
/// `verb` and `Selector`, so the app knows what to do and for which account.
enum Pnm2Payload {
    static func notification(_ push: Pnm2Push, app: RegisteredApp, target: Pnm2Addressing.Target) -> Notification {
        // The app and the subscription travel with the push: delivery reads neither again.
        var notification =
            target.subscription.map {
                Notification(app: app, subscription: $0, deviceID: target.device?.id, sandbox: target.device?.sandbox)
            }
            ?? Notification(app: app, token: target.token, deviceID: target.device?.id, sandbox: target.device?.sandbox)
        switch app.platform {
        case .apns: notification.apns = apns(push, app: app)
        case .fcm: notification.fcm = fcm(push)
        case .web: notification.web = web(push)
        }
        return notification
    }

    /// An app registered with push type voip (the Token Reporter's `….pushkit` AppIds) gets a
    /// VoIP push with every field as a custom key: PushKit shows nothing itself. Otherwise a
    /// text is a visible alert the app's extension may rewrite, a reprovision a silent push.
    static func apns(_ push: Pnm2Push, app: RegisteredApp) -> APNsMessage {
        var custom: [String: JSONValue] = ["verb": .string(push.verb.rawValue)]
        custom["Selector"] = push.selector.map(JSONValue.string)
        custom["Id"] = push.messageID.map(JSONValue.string)
        custom["ContentType"] = push.contentType.map(JSONValue.string)
        if app.apnsPushType == .voip {
            custom["Message"] = push.message.map(JSONValue.string)
            custom["UserName"] = push.sender.map(JSONValue.string)
            custom["Badge"] = push.badge.map { .number(Double($0)) }
            custom["Sound"] = push.sound.map(JSONValue.string)
            custom["ThreadId"] = push.threadID.map(JSONValue.string)
            custom["aps"] = .object([:])
            return APNsMessage(payload: JSONValue.object(custom).encoded(), pushType: .voip, priority: 10)
        }
        var aps: [String: JSONValue] = [:]
        var alert: [String: JSONValue] = [:]
        alert["title"] = push.sender.map(JSONValue.string)
        alert["body"] = push.message.map(JSONValue.string)
        if push.verb != .notifyReprovision {
            aps["badge"] = push.badge.map { .number(Double($0)) }
            aps["sound"] = push.sound.map(JSONValue.string)
        }
        let visible = push.verb != .notifyReprovision && !(alert.isEmpty && aps.isEmpty)
        guard visible else {
            // Reprovisioning, or a text with nothing to show: wake the app to fetch, silently.
            custom["aps"] = .object(["content-available": .number(1)])
            return APNsMessage(payload: JSONValue.object(custom).encoded(), pushType: .background, priority: 5)
        }
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        aps["thread-id"] = push.threadID.map(JSONValue.string)
        if push.verb == .notifyTextMessage {
            // Lets the app's notification service extension replace the preview with the
            // fetched message (the document's iOS 13+ flow).
            aps["mutable-content"] = .number(1)
        }
        custom["aps"] = .object(aps)
        return APNsMessage(payload: JSONValue.object(custom).encoded(), pushType: .alert, priority: 10)
    }

    /// A data message: the app handles every verb itself, as Acrobits' Android apps do. FCM
    /// data values are strings. (firebase.google.com, "REST Resource: projects.messages".)
    static func fcm(_ push: Pnm2Push) -> FCMMessage {
        var data: [String: JSONValue] = ["verb": .string(push.verb.rawValue)]
        data["Selector"] = push.selector.map(JSONValue.string)
        data["Message"] = push.message.map(JSONValue.string)
        data["Badge"] = push.badge.map { .string(String($0)) }
        data["Sound"] = push.sound.map(JSONValue.string)
        data["UserName"] = push.sender.map(JSONValue.string)
        data["ContentType"] = push.contentType.map(JSONValue.string)
        data["Id"] = push.messageID.map(JSONValue.string)
        data["ThreadId"] = push.threadID.map(JSONValue.string)
        return FCMMessage(fields: ["data": .object(data), "android": .object(["priority": .string("HIGH")])])
    }

    /// A browser softphone's service worker gets the same fields as an Android app, as JSON. A
    /// call or message is worth waking the browser for (urgency high); one that waited a day
    /// in the push service is no use any more.
    static func web(_ push: Pnm2Push) -> WebPushMessage {
        let fields = fcm(push).fields["data"] ?? .object([:])
        return WebPushMessage(payload: fields.encoded(), ttl: 86_400, urgency: .high)
    }
}
