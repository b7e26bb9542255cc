/// The topics a bridge client may subscribe to (`PUSHGATE_BRIDGE_TOPICS`): topic paths, each
/// admitting itself and everything below it. `pnsub` needs no secret, so without such a list
/// anyone can store subscriptions to topics nobody publishes. Unset: every topic (the doctor
/// warns about that).
public struct BridgeTopics: Sendable, Equatable {
    public static let key = "PUSHGATE_BRIDGE_TOPICS"

    /// nil: unrestricted.
    public let prefixes: [TopicPath]?

    public static let unrestricted = BridgeTopics(prefixes: nil)

    public init(prefixes: [TopicPath]?) {
        self.prefixes = prefixes
    }

    /// The comma-separated configured value; nil or blank: unrestricted. Returns nil when an
    /// entry is not a topic path.
    public init?(configured value: String?) {
        guard let value, !value.allSatisfy({ $0 == " " || $0 == "," }) else {
            self = .unrestricted
            return
        }
        var prefixes: [TopicPath] = []
        for entry in value.split(separator: ",") {
            let trimmed = entry.trimmingCharacters(in: " ")
            guard !trimmed.isEmpty else { continue }
            guard let path = try? TopicPath(trimmed) else { return nil }
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

extension Substring {
    fileprivate func trimmingCharacters(in character: Character) -> Substring {
        var text = self
        while text.first == character { text = text.dropFirst() }
        while text.last == character { text = text.dropLast() }
        return text
    }
}
