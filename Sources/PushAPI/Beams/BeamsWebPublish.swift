import PushCore

/// The `web` half of a Beams publish, checked: what the Beams service worker shows
/// (`notification`), hands the page (`data`), and how long the push service keeps it
/// (`time_to_live`, Beams' 4 weeks by default and at most).
struct BeamsWebPublish: Equatable {
    static let maximumTTL = 2_419_200

    var notification: [String: JSONValue]?
    var data: [String: JSONValue]?
    var ttl: Int

    /// The notification fields the service worker reads, and their JSON types.
    private static let notificationStrings = ["title", "body", "icon", "deep_link"]
    private static let notificationFlags = ["hide_notification_if_site_has_focus"]

    init(_ fields: [String: JSONValue]) throws(BeamsError) {
        switch fields["notification"] {
        case nil, .null?: notification = nil
        case .object(let given)?:
            for name in Self.notificationStrings where !(given[name].map { $0.stringValue != nil || $0.isNull } ?? true)
            {
                throw .unprocessable("web.notification.\(name) must be a string.")
            }
            for name in Self.notificationFlags where !(given[name].map { $0.boolValue != nil || $0.isNull } ?? true) {
                throw .unprocessable("web.notification.\(name) must be true or false.")
            }
            notification = given
        default: throw .unprocessable("web.notification must be an object (title, body, icon, deep_link).")
        }
        switch fields["data"] {
        case nil, .null?: data = nil
        case .object(let given)?:
            // The service worker keeps `pusher` for itself; a caller's would replace the ids
            // it reports with and shows nothing without.
            guard given["pusher"] == nil else { throw .unprocessable("web.data cannot contain the key \"pusher\".") }
            data = given
        default: throw .unprocessable("web.data must be an object.")
        }
        guard notification != nil || data != nil else {
            throw .unprocessable("web needs a notification, data or both.")
        }
        switch fields["time_to_live"] {
        case nil, .null?: ttl = Self.maximumTTL
        case .number(let seconds)?:
            guard seconds >= 0, seconds <= Double(Self.maximumTTL), seconds.rounded() == seconds else {
                throw .unprocessable("web.time_to_live must be whole seconds from 0 to \(Self.maximumTTL).")
            }
            ttl = Int(seconds)
        default: throw .unprocessable("web.time_to_live must be a number of seconds.")
        }
    }

    /// The push message for the Beams service worker: `notification`, and `data` with the
    /// `pusher` fields it needs to show anything and to report (`instanceId`, `publishId`).
    func message(instanceID: String, publishID: String) throws(BeamsError) -> WebPushMessage {
        var data = self.data ?? [:]
        data["pusher"] = .object([
            "instanceId": .string(instanceID), "publishId": .string(publishID),
            "hasDisplayableContent": .bool(notification != nil), "hasData": .bool(self.data != nil),
        ])
        var payload: [String: JSONValue] = ["data": .object(data)]
        if let notification { payload["notification"] = .object(notification) }
        let bytes = JSONValue.object(payload).encoded()
        guard bytes.count <= WebPushMessage.maximumPayloadLength else {
            throw .unprocessable(
                "The web message is \(bytes.count) bytes with its pusher fields; a Web Push carries at most "
                    + "\(WebPushMessage.maximumPayloadLength).")
        }
        return WebPushMessage(payload: bytes, ttl: ttl)
    }
}
