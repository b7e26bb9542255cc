import Foundation
import XCTest

/// App picks a store backend from the configuration once and never asks which engine it
/// is: no engine, nor any of one engine's parts, is named in App's code or comments.
/// String literals are left out: what an operator reads (a setting's meaning, a command's
/// help) may well name the engine it concerns, and changing it would change the CLI.
final class EngineNamesTests: XCTestCase {
    static let engineNames = ["SQLite", "PostgreSQL", "GroupCommitWriter", "WriteBatcher"]

    static let appSources = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/App")

    func testAppNamesNoEngine() throws {
        let files = try XCTUnwrap(FileManager.default.enumerator(at: Self.appSources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }
            .filter { $0.pathExtension == "swift" }
        XCTAssertGreaterThan(files.count, 20, "Sources/App not found at \(Self.appSources.path)")
        var found: [String] = []
        for file in files {
            let text = Self.withoutStringLiterals(try String(contentsOf: file, encoding: .utf8))
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for name in Self.engineNames where line.contains(name) {
                    found.append("\(file.lastPathComponent):\(number + 1): \(name)")
                }
            }
        }
        XCTAssertEqual(found, [], "App names an engine; ask the StoreBackend instead")
    }

    /// The scan itself: names in code and comments count, in string literals they do not,
    /// but inside an interpolation they are code again.
    func testStringLiteralsAreLeftOut() {
        let source = """
            let a = "SQLite file" // a comment about PostgreSQL
            let b = \"\"\"
                PostgreSQL text
                \"\"\"
            let c = "\\(GroupCommitWriter.self) and \\"WriteBatcher\\""
            /* SQLite */
            """
        let kept = Self.withoutStringLiterals(source)
        XCTAssertFalse(kept.contains("SQLite file"), kept)
        XCTAssertTrue(kept.contains("a comment about PostgreSQL"), kept)
        XCTAssertFalse(kept.contains("PostgreSQL text"), kept)
        XCTAssertTrue(kept.contains("GroupCommitWriter.self"), kept)
        XCTAssertFalse(kept.contains("WriteBatcher"), kept)
        XCTAssertTrue(kept.contains("/* SQLite */"), kept)
        XCTAssertEqual(
            kept.split(separator: "\n", omittingEmptySubsequences: false).count, 6, "lines keep their numbers")
    }

    /// `source` with the text of its string literals blanked (line breaks kept, so that line
    /// numbers stay right); code, comments and interpolations stay.
    static func withoutStringLiterals(_ source: String) -> String {
        enum Mode { case code, lineComment, blockComment, string, multilineString }
        let characters = Array(source)
        var output = ""
        // Each open string literal is a mode; an interpolation in one counts its parentheses.
        var modes: [Mode] = [.code]
        var parentheses: [Int] = [0]
        var index = 0
        func starts(_ text: String) -> Bool {
            let pattern = Array(text)
            return index + pattern.count <= characters.count
                && Array(characters[index..<index + pattern.count]) == pattern
        }
        while index < characters.count {
            let character = characters[index]
            switch modes.last! {
            case .code:
                if starts("//") {
                    modes.append(.lineComment)
                } else if starts("/*") {
                    modes.append(.blockComment)
                } else if starts("\"\"\"") {
                    modes.append(.multilineString)
                    output += "\"\"\""
                    index += 3
                    continue
                } else if character == "\"" {
                    modes.append(.string)
                } else if character == "(" {
                    parentheses[parentheses.count - 1] += 1
                } else if character == ")" {
                    if parentheses.last == 0, modes.count > 1 {
                        // The end of an interpolation: back into its string.
                        modes.removeLast()
                        parentheses.removeLast()
                    } else {
                        parentheses[parentheses.count - 1] -= 1
                    }
                }
                output.append(character)
            case .lineComment:
                if character == "\n" { modes.removeLast() }
                output.append(character)
            case .blockComment:
                if starts("*/") {
                    modes.removeLast()
                    output += "*/"
                    index += 2
                    continue
                }
                output.append(character)
            case .string, .multilineString:
                let multiline = modes.last! == .multilineString
                if starts("\\(") {
                    modes.append(.code)
                    parentheses.append(0)
                    output += "\\("
                    index += 2
                    continue
                }
                if character == "\\" {
                    index += 2
                    continue
                }
                if multiline ? starts("\"\"\"") : character == "\"" {
                    modes.removeLast()
                    output += multiline ? "\"\"\"" : "\""
                    index += multiline ? 3 : 1
                    continue
                }
                if character == "\n" { output.append(character) }
            }
            index += 1
        }
        return output
    }
}
