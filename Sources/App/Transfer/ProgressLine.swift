import Foundation
import PushStore

/// One line on a terminal's stderr, rewritten in place as an import goes on; nothing at all
/// when stderr is not a terminal (a log, a pipe).
final class ProgressLine {
    private let enabled: Bool
    private var lastShown = Date.distantPast
    private var shown = false

    init(enabled: Bool) {
        self.enabled = enabled
    }

    func show(_ progress: TransferProgress, bytesRead: Int64, size: Int64?) {
        guard enabled, Date().timeIntervalSince(lastShown) >= 0.2 else { return }
        lastShown = Date()
        var text = "\rimporting: \(progress.rows) rows"
        if let size, size > 0 { text += String(format: " (%.0f%%)", Double(bytesRead) * 100 / Double(size)) }
        FileHandle.standardError.write(Data((text + "\u{1B}[K").utf8))
        shown = true
    }

    /// Ends the progress line so that what follows starts on a line of its own.
    func finish() {
        guard shown else { return }
        FileHandle.standardError.write(Data("\n".utf8))
        shown = false
    }
}
