import Foundation

/// A secret an operator hands a command in a file, or on standard input for `-`, so that it
/// never shows in the process list or the shell's history as an option's value would.
enum SecretInput {
    /// The file's text with one trailing line break removed (`echo` and editors add one; a
    /// password never ends in one).
    static func read(_ path: String, option: String) throws -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CommandFailure("\(option) \(path): cannot read the file")
            }
            data = contents
        }
        guard var text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("\(option) \(path): not UTF-8 text")
        }
        if text.hasSuffix("\r\n") {
            text.removeLast(1)  // "\r\n" is one Character in Swift
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        return text
    }
}
