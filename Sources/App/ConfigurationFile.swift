import Foundation

/// A configuration file: `KEY = value` lines with the same `PUSHGATE_*` keys as the
/// environment, `#` comments, blank lines, and optional double quotes around a value.
public struct ConfigurationFile: Sendable {
    public struct Entry: Sendable, Equatable {
        public let key: String
        public let value: String
        public let line: Int
    }

    public let path: String
    public let entries: [Entry]

    public init(path: String) throws(ConfigurationError) {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadableFile(path: path, reason: (error as NSError).localizedDescription)
        }
        try self.init(path: path, text: text)
    }

    public init(path: String, text: String) throws(ConfigurationError) {
        self.path = path
        var entries: [Entry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else { throw .malformedLine(path: path, line: index + 1) }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            guard !key.isEmpty, !key.contains(" ") else { throw .malformedLine(path: path, line: index + 1) }
            entries.append(Entry(key: key, value: value, line: index + 1))
        }
        self.entries = entries
    }
}
