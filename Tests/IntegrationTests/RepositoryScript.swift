import Foundation

/// A script of `scripts/` run to its end with the debug binaries the tests run beside
/// (`PUSHGATE_BIN`, `PUSHGATE_MOCK_BIN`), none of the caller's other `PUSHGATE_*` settings, and
/// `environment` added; its exit status and its output and errors as one text.
enum RepositoryScript {
    static func run(
        _ name: String, arguments: [String] = [], environment extra: [String: String] = [:]
    ) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = PushgateInstance.repository.appendingPathComponent("scripts/\(name)")
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHGATE_") }
        environment["PUSHGATE_BIN"] = PushgateInstance.executable.path
        environment["PUSHGATE_MOCK_BIN"] = PushgateInstance.executable.deletingLastPathComponent()
            .appendingPathComponent("pushgate-mock").path
        environment.merge(extra) { _, given in given }
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
