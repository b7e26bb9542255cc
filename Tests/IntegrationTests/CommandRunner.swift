import Foundation
import PushTesting

extension PushgateInstance.Output {
    /// Runs a command to its end: `stdin` written then closed (none: /dev/null), both outputs
    /// read at once (one read after the other would stop a command whose unread pipe filled).
    static func of(
        _ path: String, _ arguments: [String], environment: [String: String], in directory: URL? = nil,
        stdin: String? = nil
    ) throws -> PushgateInstance.Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = stdin.map { _ in Pipe() }
        process.standardInput = input ?? FileHandle.nullDevice
        try process.run()
        if let stdin, let input {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try input.fileHandleForWriting.close()
        }
        let errors = ResultBox<Data>()
        let errorHandle = err.fileHandleForReading
        Thread { errors.set(errorHandle.readDataToEndOfFile()) }.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        // The reader ends with the command's end (its pipe closes); the wait only bounds it.
        let stderr = errors.wait(timeout: 60) ?? Data()
        return PushgateInstance.Output(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }
}
