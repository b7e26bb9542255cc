import PushCore

/// Fits a full-format APNs payload within the push type's limit (4 KiB, 5 KiB for VoIP) by
/// shortening the alert's arguments, longest first, as Sygnal's `apnstruncate` does: a long
/// message still alerts, cut, rather than being refused by APNs.
enum MatrixAPNsTruncation {
    static func fit(_ payload: [String: JSONValue], within limit: Int) -> [UInt8] {
        var payload = payload
        var encoded = JSONValue.object(payload).encoded()
        while encoded.count > limit {
            guard var aps = payload["aps"]?.objectValue, var alert = aps["alert"]?.objectValue,
                var arguments = alert["loc-args"]?.arrayValue?.map({ $0.stringValue ?? "" }),
                let longest = arguments.indices.max(by: { arguments[$0].utf8.count < arguments[$1].utf8.count }),
                !arguments[longest].isEmpty
            else { return encoded }
            // JSON escapes make a character cost more than its UTF-8 bytes: cut at least one.
            let excess = encoded.count - limit
            arguments[longest] = shortened(arguments[longest], byAtLeast: max(excess, 1))
            alert["loc-args"] = .array(arguments.map(JSONValue.string))
            aps["alert"] = .object(alert)
            payload["aps"] = .object(aps)
            encoded = JSONValue.object(payload).encoded()
        }
        return encoded
    }

    /// `text` without its last characters, at least `bytes` UTF-8 bytes fewer, whole
    /// characters only.
    static func shortened(_ text: String, byAtLeast bytes: Int) -> String {
        var kept = Substring(text)
        var removed = 0
        while removed < bytes, let last = kept.last {
            removed += last.utf8.count
            kept.removeLast()
        }
        return String(kept)
    }
}
