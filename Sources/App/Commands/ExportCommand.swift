import ArgumentParser
import Foundation
import PushStore

/// `pushgate export`: the whole store as JSON lines, to stdout or a file.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the whole store (apps with credentials, devices and owners, users, keys, queued pushes) as JSON lines.",
        discussion: """
            One JSON object per line, each with a "type"; the first line names the format and the \
            schema version, the last counts the rows. Read from one snapshot, safe while serve \
            runs. The output holds credentials and password hashes: --output creates its file \
            with mode 0600. `pushgate import` reads it into an empty store of either engine.
            """)

    @OptionGroup var global: GlobalOptions

    @Option(name: .shortAndLong, help: "Write to FILE (replaced only once the export is complete) instead of stdout.")
    var output: String?

    func run() throws {
        let runtime = try Runtime(global)
        let store = try runtime.openStore()
        let sink = try output.map { try ExportFile(path: $0) }
        let writer = BufferedWriter(descriptor: sink?.descriptor ?? STDOUT_FILENO)
        let summary: TransferSummary
        do {
            summary = try store.exportStore { line in try writer.write(line + "\n") }
            try writer.flush()
            try sink?.commit()
        } catch {
            sink?.discard()
            throw CommandFailure("export failed: \(error)")
        }
        let destination = output ?? "stdout"
        FileHandle.standardError.write(
            Data("exported \(summary) (schema \(summary.schemaVersion)) from \(runtime.backend.databaseDescription) to \(destination)\n".utf8))
    }
}

/// The file `--output` names, written beside it under a temporary name and renamed over it
/// once complete: an export that fails leaves no half file that looks like a backup.
final class ExportFile {
    let path: String
    let temporaryPath: String
    let descriptor: Int32

    init(path: String) throws {
        self.path = path
        temporaryPath = path + ".partial"
        // 0600: an export holds the apps' private keys and the users' password hashes. A new
        // file only (O_EXCL), never through a symlink (O_NOFOLLOW): a file or link another
        // user left under this name would otherwise keep its own mode or lead elsewhere.
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno
            if reason == EEXIST {
                throw CommandFailure(
                    "cannot create \(temporaryPath): it exists (left by an export that stopped, or put there by someone else); check it and remove it")
            }
            throw CommandFailure("cannot create \(temporaryPath): \(String(cString: strerror(reason)))")
        }
    }

    func commit() throws {
        guard fsync(descriptor) == 0, close(descriptor) == 0 else {
            throw CommandFailure("cannot write \(temporaryPath): \(String(cString: strerror(errno)))")
        }
        guard rename(temporaryPath, path) == 0 else {
            throw CommandFailure("cannot rename \(temporaryPath) to \(path): \(String(cString: strerror(errno)))")
        }
    }

    func discard() {
        close(descriptor)
        unlink(temporaryPath)
    }
}
