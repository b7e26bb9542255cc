/// The topics a bridge client may subscribe to (`PUSHGATE_BRIDGE_TOPICS`): topic paths, each
/// admitting itself and everything below it. `pnsub` needs no secret, so without such a list
/// anyone can store subscriptions to topics nobody publishes. Unset: every topic (the doctor
/// warns about that).
public struct BridgeTopics: Sendable, Equatable {
    public static let key = "PUSHGATE_BRIDGE_TOPICS"

    /// nil: unrestricted.
    public let prefixes: [TopicPath]?

    public static let unrestricted = BridgeTopics(prefixes: nil)
}

extension BridgeTopics {
    /// The comma-separated configured value; nil or blank: unrestricted. Returns nil when an
    /// entry is not a topic path.
    public init?(configured value: String?) {
        guard let value, !value.allSatisfy({ $0 == " " || $0 == "," }) else {
            self = .unrestricted
            return
        }
        var prefixes: [TopicPath] = []
        for entry in value.split(separator: ",") {
            // Spaces around an entry are the operator's layout; an entry of spaces alone is none.
            guard let start = entry.firstIndex(where: { $0 != " " }), let end = entry.lastIndex(where: { $0 != " " })
            else { continue }
            guard let path = try? TopicPath(entry[start...end]) else { return nil }
            prefixes.append(path)
        }
        self.prefixes = prefixes
    }

    /// Whether every topic `selector` selects lies within the list: its path is a listed one
    /// or below one, part by part (`news` admits `news/x`, never `newsroom`).
    public func admits(_ selector: TopicSelector) -> Bool {
        guard let prefixes else { return true }
        let path = selector.path.text
        return prefixes.contains { path == $0.text || path.hasPrefix($0.text + "/") }
    }
}
