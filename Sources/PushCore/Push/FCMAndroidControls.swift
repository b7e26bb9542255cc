/// The delivery controls of an FCM push: how long FCM keeps it for an offline device, which
/// pending push of the same key it replaces, and how urgently it goes. HTTP v1 reads them from
/// the message's `android` object (`ttl` as a duration such as "3600s", `collapse_key`,
/// `priority` NORMAL or HIGH).
/// (firebase.google.com, "REST Resource: projects.messages", AndroidConfig.)
public struct FCMAndroidControls: Equatable, Sendable {
    public enum Priority: String, Sendable, CaseIterable {
        case normal = "NORMAL"
        case high = "HIGH"

        /// `normal` or `high`, in any case (the legacy API's and Beams' spelling).
        public init?(name: String) {
            guard let priority = Priority(rawValue: name.uppercased()) else { return nil }
            self = priority
        }
    }

    public enum Control: String, Sendable {
        case ttl, collapseKey = "collapse_key", priority
    }

    /// Seconds; 0 means deliver now or drop.
    public var ttl: Int?
    public var collapseKey: String?
    public var priority: Priority?

    /// FCM keeps a message at most four weeks.
    public static let maximumTTL = 2_419_200

    public init(ttl: Int? = nil, collapseKey: String? = nil, priority: Priority? = nil) {
        self.ttl = ttl
        self.collapseKey = collapseKey
        self.priority = priority
    }

    public var isEmpty: Bool { ttl == nil && collapseKey == nil && priority == nil }

    /// The first control FCM would refuse, and what is wrong with it, to follow the field's name.
    public func refusal() -> (control: Control, detail: String)? {
        if let ttl, !(0...Self.maximumTTL).contains(ttl) {
            return (.ttl, "must be 0 to \(Self.maximumTTL) seconds (four weeks), not \(ttl)")
        }
        if let collapseKey, collapseKey.isEmpty { return (.collapseKey, "must not be empty") }
        return nil
    }

    /// `message` with these controls set in its `android` object (kept otherwise), so a caller's
    /// own `android` fields survive and a control given here wins.
    public func applied(to message: FCMMessage) -> FCMMessage {
        if isEmpty { return message }
        var android = message.fields["android"]?.objectValue ?? [:]
        if let ttl { android["ttl"] = .string("\(ttl)s") }
        if let collapseKey { android["collapse_key"] = .string(collapseKey) }
        if let priority { android["priority"] = .string(priority.rawValue) }
        var fields = message.fields
        fields["android"] = .object(android)
        return FCMMessage(fields: fields)
    }
}
