import Foundation
import PushCore

/// `--online`: `pushgate apps check` for each app, run as its own process with the same
/// configuration, so that its answer is exactly what an operator would see.
struct OnlineCredentialsCheck {
    let apps: [AppID]
    let configPath: String?

    func run() -> [DoctorFinding] {
        apps.map { app in
            let subject = "app \(app) online"
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            var arguments = ["apps", "check", "--id", app.rawValue]
            if let configPath { arguments += ["--config", configPath] }
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.standardInput = FileHandle.nullDevice
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            do {
                try process.run()
            } catch {
                return .problem(subject, "could not run `pushgate apps check`: \(error)")
            }
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let lines = text.split(separator: "\n").map(String.init)
            // Its verdict is its last line; ArgumentParser prefixes a failure with "Error: ".
            var last = lines.last(where: { !$0.isEmpty }) ?? "(no output)"
            if last.hasPrefix("Error: ") { last.removeFirst("Error: ".count) }
            if process.terminationStatus == 0 {
                return .ok(subject, last)
            }
            return .problem(subject, last)
        }
    }
}
