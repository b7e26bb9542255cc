import Logging
import PushCore

/// The one line logged per request. The query string is left out: Token Reporter URLs and
/// PBX scripts put passwords and tokens there; the path is shortened (see `LoggedPath`).
enum RequestLogLine {
    /// Paths longer than this are cut, so a hostile URL cannot make a huge log line.
    static let maxPathCharacters = 200

    /// A plain success is logged at debug, and only a refusal, a failure or an answer with a
    /// note at info. nginx's access log already has a line for every request, with the same
    /// request id; a second one per success would reach journald's rate limit (10,000 lines in
    /// 30 s per unit by default) at a few hundred requests a second, and past it journald drops
    /// every line of the unit, warnings included.
    static func level(status: Int, note: String?) -> Logger.Level {
        status < 400 && note == nil ? .debug : .info
    }

    static func message(method: String, path: String, status: Int, nanoseconds: UInt64, note: String?) -> String {
        let shortened = LoggedPath.shown(path)
        let shownPath =
            // A string has no more characters than bytes: the count of characters, a walk of
            // the whole path, is needed only for a long one.
            shortened.utf8.count > maxPathCharacters && shortened.count > maxPathCharacters
            ? String(shortened.prefix(maxPathCharacters)) + "…" : shortened
        var line = "\(method) \(shownPath) \(status) \(milliseconds(nanoseconds)) ms"
        if let note, !note.isEmpty { line += ": \(note)" }
        return line
    }

    /// Milliseconds with two decimals (`0.42`, `12.30`), without Foundation's `String(format:)`.
    static func milliseconds(_ nanoseconds: UInt64) -> String {
        let hundredths = (nanoseconds + 5_000) / 10_000
        let fraction = hundredths % 100
        return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }
}
