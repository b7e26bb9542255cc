/// A Diffusion topic path: `/`-separated parts, each one or more characters other than `/`.
/// Paths are absolute, so a leading `/` is dropped (`/a/b` is `a/b`), as Diffusion does.
public struct TopicPath: Sendable, Hashable, CustomStringConvertible {
    /// The canonical text, without a leading `/`.
    public let text: String

    /// Longest path accepted, in UTF-8 bytes; real ones are a few dozen.
    public static let maximumLength = 1024

    public enum ParseError: Error, Equatable {
        case empty
        case emptyPart
        case tooLong
        case controlCharacter
    }

    public init(_ raw: some StringProtocol) throws(ParseError) {
        var text = Substring(raw)
        while text.first == "/" { text = text.dropFirst() }
        guard !text.isEmpty else { throw .empty }
        guard text.utf8.count <= Self.maximumLength else { throw .tooLong }
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .controlCharacter
        }
        guard !text.hasSuffix("/"), !text.contains("//") else { throw .emptyPart }
        self.text = String(text)
    }

    /// The paths above this one, nearest the root first: `a`, `a/b` for `a/b/c`.
    public var ancestors: [String] {
        text.indices.filter { text[$0] == "/" }.map { String(text[..<$0]) }
    }

    public var description: String { text }
}
