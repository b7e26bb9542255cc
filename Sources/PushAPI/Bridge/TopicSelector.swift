/// The subset of Diffusion's topic selector syntax the bridge serves: selectors that name one
/// path, qualified for its descendants. What Diffusion spells
/// - `>a/b` or, abbreviated, `a/b`: the topic `a/b` only;
/// - `>a/b/` (or `a/b/`): the descendants of `a/b`, not `a/b` itself;
/// - `>a/b//` (or `a/b//`): `a/b` and all its descendants;
/// - `?a/b…` and `*a/b…` (split-path and full-path patterns) whose parts hold no regular
///   expression characters, which select exactly what the `>` form does.
/// Patterns with regular expressions and selector sets (`#`) are refused: matching them would
/// mean running every subscriber's regex at each publish instead of one indexed lookup.
public struct TopicSelector: Sendable, Hashable, CustomStringConvertible {
    public enum Scope: Sendable, Hashable {
        /// The path itself.
        case path
        /// Everything below the path (Diffusion's trailing `/`).
        case descendants
        /// The path and everything below it (Diffusion's trailing `//`).
        case pathAndDescendants
    }

    public let path: TopicPath
    public let scope: Scope

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case empty
        case invalidPath(String, TopicPath.ParseError)
        case regularExpression(String)
        case selectorSet
        case reservedPrefix(Character)

        public var description: String {
            switch self {
            case .empty:
                return "topic selector is empty"
            case .invalidPath(let expression, .emptyPart):
                return "topic selector \(expression) names a path with an empty part"
            case .invalidPath(let expression, .empty):
                return "topic selector \(expression) names no path"
            case .invalidPath(_, .tooLong):
                return "topic selector is longer than \(TopicPath.maximumLength) bytes"
            case .invalidPath(_, .controlCharacter):
                return "topic selector contains a control character"
            case .regularExpression(let expression):
                return "topic selector \(expression) is a regular expression pattern; this bridge serves path selectors only (>path, >path/ for descendants, >path// for the path and its descendants)"
            case .selectorSet:
                return "selector sets (#) are not supported: subscribe to each selector on its own"
            case .reservedPrefix(let prefix):
                return "topic selectors starting with \(prefix) are reserved"
            }
        }
    }

    /// The first characters Diffusion gives a meaning to (or reserves).
    private static let reservedPrefixes: Set<Character> = ["$", "%", "&", "<"]
    /// Characters with a meaning in a Java regular expression: a pattern without any is a path.
    private static let regexCharacters: Set<Character> = [".", "^", "$", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|", "\\"]

    public init(parsing expression: String) throws(ParseError) {
        guard let first = expression.first else { throw .empty }
        var body = Substring(expression)
        switch first {
        case ">":
            body = body.dropFirst()
        case "?", "*":
            body = body.dropFirst()
            guard !body.contains(where: Self.regexCharacters.contains) else { throw .regularExpression(expression) }
        case "#":
            throw .selectorSet
        case let prefix where Self.reservedPrefixes.contains(prefix):
            throw .reservedPrefix(prefix)
        default:
            break  // Diffusion's abbreviated path expression: the whole text is the path.
        }
        if body.hasSuffix("//") {
            scope = .pathAndDescendants
            body = body.dropLast(2)
        } else if body.hasSuffix("/") {
            scope = .descendants
            body = body.dropLast()
        } else {
            scope = .path
        }
        do throws(TopicPath.ParseError) {
            path = try TopicPath(body)
        } catch {
            throw .invalidPath(expression, error)
        }
    }

    /// The one spelling stored and shown for every way of writing this selector.
    public var canonical: String {
        switch scope {
        case .path: return ">\(path.text)"
        case .descendants: return ">\(path.text)/"
        case .pathAndDescendants: return ">\(path.text)//"
        }
    }

    public var description: String { canonical }

    public func selects(_ topic: TopicPath) -> Bool {
        let isSelf = topic.text == path.text
        let isBelow = topic.text.hasPrefix(path.text + "/")
        switch scope {
        case .path: return isSelf
        case .descendants: return isBelow
        case .pathAndDescendants: return isSelf || isBelow
        }
    }

    /// The canonical spelling of every selector that selects `topic`: what a publish looks up,
    /// so that matching is an exact, indexed comparison of strings.
    public static func canonicalSelectors(selecting topic: TopicPath) -> [String] {
        var result = [">\(topic.text)", ">\(topic.text)//"]
        for ancestor in topic.ancestors {
            result.append(">\(ancestor)/")
            result.append(">\(ancestor)//")
        }
        return result
    }
}
