import ArgumentParser
import Foundation
import PushStore

/// `pushgate import`: an export read into an empty store of either engine.
struct ImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Read a `pushgate export` into an empty store (SQLite or PostgreSQL).",
        discussion: """
            The store must be empty (a new PUSHGATE_DB file, which import creates, or an empty \
            PostgreSQL database or schema); it is migrated first. Everything is written in one \
            transaction: a malformed line (named by its number), a refused row or a file cut \
            short leaves the store empty. On a terminal a progress line shows on stderr.
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The export to read; stdin when absent or -.")
    var file: String?

    func run() throws {
        let runtime = try Runtime(global)
        let store = try runtime.openStore(creating: true)

        let descriptor: Int32
        var size: Int64?
        if let file, file != "-" {
            descriptor = open(file, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw CommandFailure("cannot open \(file): \(String(cString: strerror(errno)))") }
            var info = stat()
            if fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG { size = Int64(info.st_size) }
        } else {
            descriptor = STDIN_FILENO
        }
        defer { if descriptor != STDIN_FILENO { close(descriptor) } }

        let reader = LineReader(descriptor: descriptor)
        let progressLine = ProgressLine(enabled: isatty(STDERR_FILENO) == 1)
        let summary: TransferSummary
        do {
            summary = try store.importStore(nextLine: reader.next, progressInterval: 1000) { progress in
                progressLine.show(progress, bytesRead: reader.bytesRead, size: size)
            }
        } catch {
            progressLine.finish()
            throw CommandFailure("import failed, nothing was imported: \(error)")
        }
        progressLine.finish()
        FileHandle.standardError.write(
            Data("imported \(summary) into \(runtime.backend.databaseDescription)\n".utf8))
    }
}
