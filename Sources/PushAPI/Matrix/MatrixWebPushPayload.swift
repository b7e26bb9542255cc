import PushCore

/// The Web Push message of a notify, in Sygnal's format (webpushpushkin.py): the default
/// payload, the notification's non-empty fields, the counts, and the content without
/// `formatted_body`, its body cut to 1,000 characters and a ciphertext over 2,000 dropped.
/// 15 minutes to live, urgency low for `prio: low`, else normal.
enum MatrixWebPushPayload {
    static let ttl = 15 * 60
    static let maximumBodyLength = 1000
    static let maximumCiphertextLength = 2000

    static func message(_ notification: MatrixNotification, defaultPayload: [String: JSONValue]) -> WebPushMessage {
        WebPushMessage(
            payload: JSONValue.object(payload(notification, defaultPayload: defaultPayload)).encoded(), ttl: ttl,
            urgency: notification.isLowPriority ? .low : .normal)
    }

    static func payload(_ notification: MatrixNotification, defaultPayload: [String: JSONValue]) -> [String: JSONValue] {
        var payload = defaultPayload
        let fields: [(String, String?)] = [
            ("room_id", notification.roomID), ("room_name", notification.roomName),
            ("room_alias", notification.roomAlias), ("membership", notification.membership),
            ("event_id", notification.eventID), ("sender", notification.sender),
            ("sender_display_name", notification.senderDisplayName),
        ]
        for case (let key, let value?) in fields where !value.isEmpty {
            payload[key] = .string(value)
        }
        if notification.userIsTarget == true { payload["user_is_target"] = .bool(true) }
        if let type = notification.type, !type.isEmpty { payload["type"] = .string(type) }
        payload["unread"] = notification.unread.map { .number(Double($0)) }
        payload["missed_calls"] = notification.missedCalls.map { .number(Double($0)) }
        if var content = notification.content, !content.isEmpty {
            content["formatted_body"] = nil
            if let body = content["body"]?.stringValue, body.count > maximumBodyLength {
                content["body"] = .string(String(body.prefix(maximumBodyLength - 1)) + "…")
            }
            if let ciphertext = content["ciphertext"]?.stringValue, ciphertext.count > maximumCiphertextLength {
                content["ciphertext"] = nil
            }
            payload["content"] = .object(content)
        }
        return payload
    }
}
