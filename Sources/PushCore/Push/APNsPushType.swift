/// How APNs handles a push: the `apns-push-type` header. Each type owns Apple's rules for it,
/// written down here once: the topic it goes to, the priority it goes at, the expiration it
/// must carry and its payload limit.
/// (developer.apple.com: "Sending notification requests to APNs", apns-push-type and
/// apns-priority; PushToTalk, "Creating a Push to Talk app"; WidgetKit, "Updating widgets with
/// WidgetKit push notifications".)
///
/// | type | topic | priority (default) | other rules |
/// | --- | --- | --- | --- |
/// | alert | bundle id | 10 | |
/// | background | bundle id | 5 | 10 is refused |
/// | location | bundle id + `.location-query` | 10 | |
/// | voip | bundle id + `.voip` | 10 | payload up to 5 KB |
/// | complication | bundle id + `.complication` | 10 | |
/// | fileprovider | bundle id + `.pushkit.fileprovider` | 10 | |
/// | mdm | the MDM certificate's topic, given | 10 | |
/// | liveactivity | bundle id + `.push-type.liveactivity` | 10 | |
/// | pushtotalk | bundle id + `.voip-ptt` | 10 | only 10; expiration 0 |
/// | widgets | bundle id + `.push-type.widgets` | 5 | |
/// | controls | bundle id + `.push-type.controls` | 10 | |
public enum APNsPushType: String, Sendable, Codable, CaseIterable {
    case alert
    case background
    case location
    case voip
    case complication
    case fileprovider
    case mdm
    case liveactivity
    case pushtotalk
    case widgets
    case controls

    /// The names, in the order Apple lists them, for messages that say what is accepted.
    public static let names = allCases.map(\.rawValue).joined(separator: ", ")

    /// What Apple appends to the bundle id to make this type's topic; nil when the topic is the
    /// bundle id itself (alert, background) or no bundle id at all (mdm).
    public var topicSuffix: String? {
        switch self {
        case .alert, .background, .mdm: return nil
        case .location: return ".location-query"
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .liveactivity: return ".push-type.liveactivity"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        }
    }

    /// The topic of this type for an app's bundle id; nil for mdm, whose topic is the UID in the
    /// MDM push certificate's subject, which no bundle id gives. A bundle id that already ends
    /// with the suffix is taken as the topic: before push types had suffixes, VoIP apps were
    /// registered under ids like `com.example.app.voip`.
    public func topic(bundleID: String) -> String? {
        if self == .mdm { return nil }
        guard let suffix = topicSuffix, !bundleID.hasSuffix(suffix) else { return bundleID }
        return bundleID + suffix
    }

    /// Whether Apple takes `topic` for this type: one with a suffix needs a topic ending with it
    /// (and naming a bundle id before it); the others take any topic.
    public func accepts(topic: String) -> Bool {
        guard let suffix = topicSuffix else { return true }
        return topic.hasSuffix(suffix) && topic.count > suffix.count
    }

    /// The bundle id a topic of this type names: the topic without this type's suffix.
    public func bundleID(topic: String) -> String {
        guard let suffix = topicSuffix, topic.hasSuffix(suffix), topic.count > suffix.count else { return topic }
        return String(topic.dropLast(suffix.count))
    }

    /// The `apns-priority` a push of this type goes at when it names none: 5 (power-considerate)
    /// where Apple asks for it, else 10 (at once).
    public var defaultPriority: Int {
        switch self {
        case .background, .widgets: return 5
        default: return 10
        }
    }

    /// The `apns-priority` values APNs takes for this type: 1, 5 and 10, except that a
    /// background push at 10 is an error and a push-to-talk push must be immediate.
    public var acceptedPriorities: [Int] {
        switch self {
        case .background: return [1, 5]
        case .pushtotalk: return [10]
        default: return [1, 5, 10]
        }
    }

    /// The only `apns-expiration` this type may carry, sent when a push names none: a
    /// push-to-talk push is delivered now or never (0).
    public var requiredExpiration: Int? {
        self == .pushtotalk ? 0 : nil
    }

    /// Apple's payload limit: 5 KB for VoIP, 4 KB for everything else.
    public var payloadLimit: Int {
        self == .voip ? 5120 : 4096
    }
}
