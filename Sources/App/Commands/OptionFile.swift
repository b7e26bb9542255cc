import Foundation

/// A file an option names (`--key-file`, `--service-account`, `--cert-password-file`), read
/// as text, with errors that name the option.
enum OptionFile {
    static func text(_ path: String, option: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("\(option) \(path): cannot read the file")
        }
        return try decoded(data, path: path, option: option)
    }

    /// A secret, from the file or from standard input for `-`, so that it never shows in the
    /// process list or the shell's history as an option's value would; one trailing line
    /// break removed (`echo` and editors add one; a password never ends in one).
    static func secret(_ path: String, option: String) throws -> String {
        var text =
            path == "-"
            ? try decoded(FileHandle.standardInput.readDataToEndOfFile(), path: path, option: option)
            : try self.text(path, option: option)
        if text.hasSuffix("\r\n") {
            text.removeLast(1)  // "\r\n" is one Character in Swift
        } else if text.hasSuffix("\n") {
            text.removeLast()
        }
        return text
    }

    private static func decoded(_ data: Data, path: String, option: String) throws -> String {
        guard let text = String(data: data, encoding: .utf8) else {
            throw CommandFailure("\(option) \(path): not a text file")
        }
        return text
    }
}
