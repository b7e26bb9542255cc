/// Why a push's APNs controls (`apns-collapse-id`, `apns-priority`, `apns-expiration`) would be
/// refused by Apple, said once for every way in: `pushgate send`, the dialects that carry the
/// controls, and the APNs client before it sends. Each way in names the field its way
/// (`--priority`, `apns.priority`) before `detail`.
public struct APNsControlRefusal: Error, Equatable, Sendable {
    public enum Control: String, Sendable {
        case collapseID = "apns-collapse-id"
        case priority = "apns-priority"
        case expiration = "apns-expiration"
    }

    public var control: Control
    /// What is wrong, to follow the field's name: "must be at most 64 bytes (it is 65)".
    public var detail: String

    /// The reason APNs answers with (developer.apple.com, "Handling notification responses from APNs").
    public var appleReason: String {
        switch control {
        case .collapseID: return "BadCollapseId"
        case .priority: return "BadPriority"
        case .expiration: return "BadExpirationDate"
        }
    }

    public init(control: Control, detail: String) {
        self.control = control
        self.detail = detail
    }

    /// Apple's limit on `apns-collapse-id`, in bytes.
    public static let maximumCollapseIDBytes = 64

    /// The first control of `message` that Apple would refuse for a push of `pushType`.
    public static func check(_ message: APNsMessage, pushType: APNsPushType) -> APNsControlRefusal? {
        if let collapseID = message.collapseID {
            if collapseID.isEmpty { return APNsControlRefusal(control: .collapseID, detail: "must not be empty") }
            let bytes = collapseID.utf8.count
            if bytes > maximumCollapseIDBytes {
                return APNsControlRefusal(
                    control: .collapseID, detail: "must be at most \(maximumCollapseIDBytes) bytes (it is \(bytes))")
            }
        }
        if let priority = message.priority, !pushType.acceptedPriorities.contains(priority) {
            let accepted = pushType.acceptedPriorities.map(String.init)
            let list = accepted.count == 1 ? accepted[0] : accepted.dropLast().joined(separator: ", ") + " or " + accepted.last!
            return APNsControlRefusal(
                control: .priority, detail: "must be \(list) for \(pushType.rawValue) pushes, not \(priority)")
        }
        if let expiration = message.expiration {
            if expiration < 0 {
                return APNsControlRefusal(
                    control: .expiration, detail: "must be a Unix time in seconds, or 0 for once only; not \(expiration)")
            }
            if let required = pushType.requiredExpiration, expiration != required {
                return APNsControlRefusal(
                    control: .expiration, detail: "must be \(required) for \(pushType.rawValue) pushes, not \(expiration)")
            }
        }
        return nil
    }
}
