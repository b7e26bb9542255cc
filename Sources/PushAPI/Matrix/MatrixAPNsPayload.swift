import PushCore

/// The APNs push of a notify, in Sygnal's format (apnspushkin.py), which Element iOS decodes:
/// event-id-only, the full format with a localised alert, or a badge alone. The push type and
/// topic are the app's, as for every dialect (a VoIP app sends VoIP pushes); the priority is 10,
/// or 5 for `prio: low`, within what the push type allows. No `apns-collapse-id` and no
/// `apns-expiration`, as Sygnal sends none.
enum MatrixAPNsPayload {
    /// Sygnal cuts each shown field to this many characters.
    static let maximumFieldLength = 1024

    /// Nil when there is nothing to send (no alert and no badge, as Sygnal skips it).
    static func message(
        _ notification: MatrixNotification, defaultPayload: [String: JSONValue], app: RegisteredApp
    ) -> APNsMessage? {
        let pushType = app.apnsPushType ?? .alert
        guard let payload = payload(notification, defaultPayload: defaultPayload) else { return nil }
        let wanted = notification.isLowPriority ? 5 : 10
        let priority = pushType.acceptedPriorities.contains(wanted) ? wanted : pushType.defaultPriority
        let shortened = MatrixAPNsTruncation.fit(payload, within: pushType.payloadLimit)
        return APNsMessage(
            payload: shortened, pushType: pushType, priority: priority, expiration: pushType.requiredExpiration)
    }

    /// The payload as a JSON object, before it is fitted to the push type's limit.
    static func payload(_ notification: MatrixNotification, defaultPayload: [String: JSONValue]) -> [String: JSONValue]? {
        notification.isEventIDOnly
            ? eventIDOnly(notification, defaultPayload: defaultPayload)
            : full(notification, defaultPayload: defaultPayload)
    }

    /// The device's default payload with the room, the event and the counts beside it: the
    /// app's notification service extension fetches the event (Element puts
    /// `aps.mutable-content` and an `aps.alert` in its default payload).
    static func eventIDOnly(_ notification: MatrixNotification, defaultPayload: [String: JSONValue]) -> [String: JSONValue] {
        var payload = defaultPayload
        payload["room_id"] = notification.roomID.flatMap(nonEmpty)
        payload["event_id"] = notification.eventID.flatMap(nonEmpty)
        payload["unread_count"] = notification.unread.map { .number(Double($0)) }
        payload["missed_calls"] = notification.missedCalls.map { .number(Double($0)) }
        return payload
    }

    /// A localised alert (`loc-key` and `loc-args` that Element's Localizable.strings names)
    /// and the badge; the default payload under it only when the notification has a type.
    static func full(_ notification: MatrixNotification, defaultPayload: [String: JSONValue]) -> [String: JSONValue]? {
        let alert = MatrixAlert(notification)
        var badge: Int64?
        if let unread = notification.unread { badge = unread }
        if let missed = notification.missedCalls { badge = (badge ?? 0) + missed }
        guard alert != nil || badge != nil else { return nil }
        var payload = (notification.type ?? "").isEmpty ? [:] : defaultPayload
        var aps = payload["aps"]?.objectValue ?? [:]
        if let alert {
            var fields = aps["alert"]?.objectValue ?? [:]
            fields["loc-key"] = .string(alert.key)
            fields["loc-args"] = .array(alert.arguments.map(JSONValue.string))
            aps["alert"] = .object(fields)
        }
        if let badge { aps["badge"] = .number(Double(badge)) }
        payload["aps"] = .object(aps)
        if alert != nil {
            payload["room_id"] = notification.roomID.flatMap(nonEmpty)
            payload["event_id"] = notification.eventID.flatMap(nonEmpty)
        }
        return payload
    }

    private static func nonEmpty(_ text: String) -> JSONValue? {
        text.isEmpty ? nil : .string(text)
    }
}

/// The alert of a full-format APNs push: Sygnal's `loc-key` for the event type and its
/// arguments, the sender shown by display name, else user id, else a space.
struct MatrixAlert: Equatable {
    let key: String
    let arguments: [String]
}

extension MatrixAlert {
    init?(_ notification: MatrixNotification) {
        let limit = MatrixAPNsPayload.maximumFieldLength
        func cut(_ text: String) -> String { String(text.prefix(limit)) }
        let anyName = !(notification.sender ?? "").isEmpty || !(notification.senderDisplayName ?? "").isEmpty
        let from = anyName ? cut(notification.senderDisplayName ?? notification.sender ?? " ") : " "
        let content = notification.content ?? [:]
        switch notification.type {
        case "m.room.message", "m.room.encrypted":
            let room = (notification.roomName ?? notification.roomAlias).map(cut)
            let msgtype = content["msgtype"]?.stringValue
            let body = msgtype != nil ? content["body"]?.stringValue : nil
            let isImage = msgtype == "m.image" && body != nil
            let action = msgtype == "m.emote" ? body : nil
            let text = msgtype == "m.emote" ? nil : body
            if let room {
                if isImage {
                    (key, arguments) = ("IMAGE_FROM_USER_IN_ROOM", [from, text ?? "", room])
                } else if let text {
                    (key, arguments) = ("MSG_FROM_USER_IN_ROOM_WITH_CONTENT", [from, room, text])
                } else if let action {
                    (key, arguments) = ("ACTION_FROM_USER_IN_ROOM", [room, from, action])
                } else {
                    (key, arguments) = ("MSG_FROM_USER_IN_ROOM", [from, room])
                }
            } else if isImage {
                (key, arguments) = ("IMAGE_FROM_USER", [from, text ?? ""])
            } else if let text {
                (key, arguments) = ("MSG_FROM_USER_WITH_CONTENT", [from, text])
            } else if let action {
                (key, arguments) = ("ACTION_FROM_USER", [from, action])
            } else {
                (key, arguments) = ("MSG_FROM_USER", [from])
            }
        case "m.call.invite":
            let sdp = content["offer"]?.objectValue?["sdp"]?.stringValue ?? ""
            (key, arguments) = (sdp.contains("m=video") ? "VIDEO_CALL_FROM_USER" : "VOICE_CALL_FROM_USER", [from])
        case "m.room.member":
            guard notification.userIsTarget == true, notification.membership == "invite" else { return nil }
            if let room = notification.roomName ?? notification.roomAlias {
                (key, arguments) = ("USER_INVITE_TO_NAMED_ROOM", [from, cut(room)])
            } else {
                (key, arguments) = ("USER_INVITE_TO_CHAT", [from])
            }
        case .some(let type) where !type.isEmpty:
            // A type pushgate does not know, important enough for the homeserver to push.
            (key, arguments) = ("MSG_FROM_USER", [from])
        default:
            return nil
        }
    }
}
