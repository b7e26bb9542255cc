import PushCore

/// The `notification` of a `POST /_matrix/push/v1/notify` (the Push Gateway API's
/// push_notifier.yaml), checked as Sygnal checks it (notifications.py): `devices` a list, each
/// device with string `app_id` and `pushkey`, `pushkey_ts` an integer, `data` and `tweaks`
/// objects, `counts` integers. Anything else it carries is kept as sent or ignored: a
/// homeserver newer than this code must not be refused for a field it added.
struct MatrixNotification: Sendable, Equatable {
    struct Device: Sendable, Equatable {
        var appID: String
        var pushkey: String
        var pushkeyTS: Int64
        /// The pusher's `data` without `url` (`format`, `default_payload`, Web Push's
        /// `endpoint` and `auth`, …); nil when not sent.
        var data: [String: JSONValue]?
        var tweaks: [String: JSONValue]

        /// `data.default_payload`: an object merged into the push, or nil; `.failure` when it
        /// is there but not an object, which Sygnal answers by rejecting the pushkey.
        var defaultPayload: Result<[String: JSONValue], MatrixRejection> {
            guard let value = data?["default_payload"], !value.isNull else { return .success([:]) }
            guard let object = value.objectValue else { return .failure(.defaultPayloadNotAnObject) }
            return .success(object)
        }
    }

    var eventID: String?
    var roomID: String?
    /// The event type; JSON `null` in Synapse's badge-only notifies after a read receipt.
    var type: String?
    var sender: String?
    var senderDisplayName: String?
    var roomName: String?
    var roomAlias: String?
    var membership: String?
    var userIsTarget: Bool?
    /// `low` lowers the APNs priority to 5, FCM's to `normal` and Web Push's urgency; anything
    /// else (usually `high`, or absent) is high.
    var isLowPriority: Bool
    var content: [String: JSONValue]?
    var unread: Int64?
    var missedCalls: Int64?
    var devices: [Device]

    /// Event-id-only: the homeserver sent the event's id and not its type (Synapse's pushers
    /// with `format: event_id_only`), so the app fetches the event itself. Decided by the
    /// notification, not by `data.format`, as Sygnal decides it.
    /// Empty strings count as absent, as Sygnal's truthiness tests read them.
    var isEventIDOnly: Bool { !(eventID ?? "").isEmpty && (type ?? "").isEmpty }

    /// Sygnal's answers to a body it cannot use: 400 with its words.
    static func parse(_ body: [UInt8]) throws(MatrixRefusal) -> MatrixNotification {
        guard let document = try? JSONValue.parse(body) else { throw .notJSON }
        guard let notification = document.objectValue?["notification"]?.objectValue else {
            throw .badJSON("Invalid notification: expecting object in 'notification' key")
        }
        return try MatrixNotification(notification)
    }

    init(_ fields: [String: JSONValue]) throws(MatrixRefusal) {
        guard let devices = fields["devices"]?.arrayValue else { throw .badJSON("Expected list in 'devices' key") }
        eventID = fields["event_id"]?.stringValue
        roomID = fields["room_id"]?.stringValue
        type = fields["type"]?.stringValue
        sender = fields["sender"]?.stringValue
        senderDisplayName = fields["sender_display_name"]?.stringValue
        roomName = fields["room_name"]?.stringValue
        roomAlias = fields["room_alias"]?.stringValue
        membership = fields["membership"]?.stringValue
        userIsTarget = fields["user_is_target"]?.boolValue
        isLowPriority = fields["prio"]?.stringValue == "low"
        content = fields["content"]?.objectValue
        if let counts = fields["counts"], !counts.isNull {
            guard let counts = counts.objectValue else { throw .badJSON("counts is of invalid type") }
            unread = try Self.integer(counts, "unread")
            missedCalls = try Self.integer(counts, "missed_calls")
        }
        self.devices = try devices.map { (value) throws(MatrixRefusal) -> Device in
            guard let device = value.objectValue else { throw .badJSON("Device is not an object") }
            guard let appID = device["app_id"]?.stringValue else {
                throw .badJSON("Device with missing or non-string app_id")
            }
            guard let pushkey = device["pushkey"]?.stringValue else {
                throw .badJSON("Device with missing or non-string pushkey")
            }
            let tweaks = try Self.object(device, "tweaks") ?? [:]
            if let sound = tweaks["sound"], sound.stringValue == nil, !sound.isNull {
                throw .badJSON("sound is of invalid type")
            }
            return Device(
                appID: appID, pushkey: pushkey, pushkeyTS: try Self.integer(device, "pushkey_ts") ?? 0,
                data: try Self.object(device, "data"), tweaks: tweaks)
        }
    }

    /// An integer field, nil when absent or null; 400 when it is there and not a whole number.
    private static func integer(_ object: [String: JSONValue], _ key: String) throws(MatrixRefusal) -> Int64? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.numberValue, number.rounded() == number, abs(number) < 9e15 else {
            throw .badJSON("\(key) is of invalid type")
        }
        return Int64(number)
    }

    private static func object(_ object: [String: JSONValue], _ key: String) throws(MatrixRefusal)
        -> [String: JSONValue]?
    {
        guard let value = object[key], !value.isNull else { return nil }
        guard let fields = value.objectValue else { throw .badJSON("\(key) is of invalid type") }
        return fields
    }
}
