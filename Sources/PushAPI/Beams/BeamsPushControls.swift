import PushCore

/// The delivery controls a Beams publish carries beside each platform's payload, taken out of
/// the payload and made into what the upstream reads:
/// - `apns`: `collapse_id`, `expiration` (Unix seconds) and `priority` (5 or 10) sit beside
///   `aps`; they become the `apns-collapse-id`, `apns-expiration` and `apns-priority` headers
///   and are not sent to the phone.
/// - `fcm`: the legacy API's `time_to_live` (seconds), `collapse_key` and `priority` (`normal`,
///   `high`) become the HTTP v1 message's `android.ttl`, `android.collapse_key` and
///   `android.priority`: v1 refuses them at the top level.
/// (Beams' server SDKs: push-notifications-node `index.d.ts`, ApnsPayload and FcmPayload.)
enum BeamsPushControls {
    /// The priorities Beams documents for `apns.priority`.
    static let apnsPriorities = [5, 10]

    static func apns(_ object: [String: JSONValue]) throws(BeamsError) -> APNsMessage {
        var payload = object
        let collapseID = try text(payload.removeValue(forKey: "collapse_id"), "apns.collapse_id")
        let expiration = try integer(payload.removeValue(forKey: "expiration"), "apns.expiration")
        let priority = try integer(payload.removeValue(forKey: "priority"), "apns.priority")
        if let priority, !apnsPriorities.contains(priority) {
            throw .unprocessable("apns.priority must be 5 or 10, not \(priority).")
        }
        let message = APNsMessage(
            payload: JSONValue.object(payload).encoded(), priority: priority, expiration: expiration,
            collapseID: collapseID)
        // The app's push type is not known here; the rules every type shares are checked now,
        // a type's own ones (background at 5) when the push is delivered.
        if let refusal = APNsControlRefusal.check(message, pushType: .alert) {
            throw .unprocessable("apns.\(name(of: refusal.control)) \(refusal.detail).")
        }
        return message
    }

    static func fcm(_ object: [String: JSONValue]) throws(BeamsError) -> FCMMessage {
        var fields = object
        var controls = FCMAndroidControls()
        controls.ttl = try integer(fields.removeValue(forKey: "time_to_live"), "fcm.time_to_live")
        controls.collapseKey = try text(fields.removeValue(forKey: "collapse_key"), "fcm.collapse_key")
        if let name = try text(fields.removeValue(forKey: "priority"), "fcm.priority") {
            guard let priority = FCMAndroidControls.Priority(name: name) else {
                throw .unprocessable("fcm.priority must be \"normal\" or \"high\".")
            }
            controls.priority = priority
        }
        if let (control, detail) = controls.refusal() {
            throw .unprocessable("fcm.\(control == .ttl ? "time_to_live" : control.rawValue) \(detail).")
        }
        return controls.applied(to: FCMMessage(fields: fields))
    }

    private static func name(of control: APNsControlRefusal.Control) -> String {
        switch control {
        case .collapseID: return "collapse_id"
        case .priority: return "priority"
        case .expiration: return "expiration"
        }
    }

    /// A string field; absent or `null` is "not given".
    private static func text(_ value: JSONValue?, _ field: String) throws(BeamsError) -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw .unprocessable("\(field) must be a string.")
        }
    }

    /// A whole JSON number; absent or `null` is "not given".
    private static func integer(_ value: JSONValue?, _ field: String) throws(BeamsError) -> Int? {
        switch value {
        case nil, .null?: return nil
        case .number(let number)? where number.rounded() == number && abs(number) < 1e15: return Int(number)
        default: throw .unprocessable("\(field) must be a whole number.")
        }
    }
}
