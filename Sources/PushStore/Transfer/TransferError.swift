/// Why an export or an import stopped. An import that stops leaves the target as it was:
/// empty (everything it wrote is one transaction, rolled back).
public enum TransferError: Error, Equatable, CustomStringConvertible {
    /// The target already holds data: import only fills a new store.
    case targetNotEmpty(table: String)
    /// The input is not an export this version reads, at `line` (from 1).
    case malformed(line: Int, String)
    /// The database refused the row of `line`.
    case refused(line: Int, String)
    /// The input ended without the export's last line: a file cut short.
    case truncated(lines: Int)
    /// Another writer made the transaction run twice: the input cannot be read again.
    case concurrentWriter

    public var description: String {
        switch self {
        case .targetNotEmpty(let table):
            return "the target store is not empty (\(table) has rows): import only into a new store "
                + "(PUSHGATE_DB naming a new file, or PUSHGATE_DATABASE_URL an empty database or schema)"
        case .malformed(let line, let reason):
            return "line \(line): \(reason)"
        case .refused(let line, let reason):
            return "line \(line): the database refused it: \(reason)"
        case .truncated(let lines):
            return "the input ends after line \(lines) without the export's closing {\"type\":\"end\"} line: "
                + "it was cut short"
        case .concurrentWriter:
            return "another writer raced the import, which was rolled back: stop every pushgate serve on "
                + "the target and import again"
        }
    }

    /// The same error at `line`, for errors raised before the line number was known.
    func at(line: Int) -> TransferError {
        switch self {
        case .malformed(_, let reason): return .malformed(line: line, reason)
        case .refused(_, let reason): return .refused(line: line, reason)
        default: return self
        }
    }
}
