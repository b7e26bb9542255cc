import PushCore

/// The FCM HTTP v1 message of a notify, in Sygnal's format (gcmpushkin.py), which Element
/// Android decodes: a data message (no `notification` block), every value a string, the
/// content flattened to `content_<key>`, the counts as strings when not zero, and
/// `android.priority` high, or normal for `prio: low`.
enum MatrixFCMPayload {
    /// Sygnal cuts each field to this many bytes, ending it with "…".
    static let maximumFieldBytes = 1024

    /// Nil when there is nothing to send: no room, no event and no count (a badge-only notify
    /// with every count zero), as Sygnal skips it.
    static func message(_ notification: MatrixNotification, defaultPayload: [String: JSONValue]) -> FCMMessage? {
        guard let data = data(notification, defaultPayload: defaultPayload) else { return nil }
        let priority = notification.isLowPriority ? "normal" : "high"
        return FCMMessage(fields: ["data": .object(data), "android": .object(["priority": .string(priority)])])
    }

    static func data(_ notification: MatrixNotification, defaultPayload: [String: JSONValue]) -> [String: JSONValue]? {
        // FCM v1 takes only strings in `data`: a default payload's other values go as their JSON.
        var data = defaultPayload.mapValues { value -> JSONValue in
            value.stringValue.map { .string($0) } ?? .string(String(decoding: value.encoded(), as: UTF8.self))
        }
        let fields: [(String, String?)] = [
            ("event_id", notification.eventID), ("type", notification.type), ("sender", notification.sender),
            ("room_name", notification.roomName), ("room_alias", notification.roomAlias),
            ("membership", notification.membership), ("sender_display_name", notification.senderDisplayName),
            ("room_id", notification.roomID),
        ]
        for case (let key, let value?) in fields {
            data[key] = .string(cut(value))
        }
        for (key, value) in notification.content ?? [:] {
            guard let text = value.stringValue else { continue }
            data["content_" + key] = .string(cut(text))
        }
        data["prio"] = .string(notification.isLowPriority ? "normal" : "high")
        var counts: [String: JSONValue] = [:]
        if let unread = notification.unread, unread != 0 { counts["unread"] = .string(String(unread)) }
        if let missed = notification.missedCalls, missed != 0 { counts["missed_calls"] = .string(String(missed)) }
        let hasRoomOrEvent = !(notification.roomID ?? "").isEmpty || !(notification.eventID ?? "").isEmpty
        guard hasRoomOrEvent || !counts.isEmpty else { return nil }
        data.merge(counts) { _, count in count }
        return data
    }

    /// `text` within `maximumFieldBytes` UTF-8 bytes, ending with "…" when it was cut.
    static func cut(_ text: String) -> String {
        guard text.utf8.count > maximumFieldBytes else { return text }
        let ellipsis = "…"
        return MatrixAPNsTruncation.shortened(text, byAtLeast: text.utf8.count - maximumFieldBytes + ellipsis.utf8.count)
            + ellipsis
    }
}
