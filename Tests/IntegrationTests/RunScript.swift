import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PushTesting

/// One `scripts/run` started by a test, its output in `log`.
final class RunScript {
    let state: URL
    let port: Int
    let socket: String
    let database: String
    private let process = Process()
    private let logURL: URL

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pushgate-run-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Starts `scripts/run` with its database, socket and nginx prefix under `state`.
    init(state: URL, port: Int? = nil, environment extra: [String: String] = [:]) throws {
        self.state = state
        extraEnvironment = extra
        self.port = try port ?? freeLoopbackPort()
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        socket = state.appendingPathComponent("run/pushgate.sock").path
        database = state.appendingPathComponent("pushgate.sqlite").path
        logURL = state.deletingLastPathComponent().appendingPathComponent("run-\(UUID().uuidString.prefix(8)).log")
        FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.executableURL = PushgateInstance.repository.appendingPathComponent("scripts/run")
        process.environment = environment.merging(["PUSHGATE_BIN": PushgateInstance.executable.path]) { _, new in new }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHGATE_") }
        environment["PUSHGATE_DB"] = database
        environment["PUSHGATE_SOCKET"] = socket
        environment["PUSHGATE_HTTP_PORT"] = String(port)
        environment["PUSHGATE_THREADS"] = "4"
        for (key, value) in extraEnvironment { environment[key] = value }
        return environment
    }

    private let extraEnvironment: [String: String]

    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
    var servePidFile: String { state.appendingPathComponent("run/pushgate.pid").path }
    var nginxPidFile: String { state.appendingPathComponent("run/nginx/nginx.pid").path }
    var client: HTTPClient { HTTPClient(port: port) }

    /// Waits for the script's "serving" line (printed once /healthz answers through nginx).
    func waitUntilServing(seconds: TimeInterval = 120) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if log.contains("pushgate: serving") { return }
            guard process.isRunning else { throw PushgateInstance.Failure("scripts/run exited:\n\(log)") }
            usleep(50_000)
        }
        throw PushgateInstance.Failure("scripts/run did not say it was serving:\n\(log)")
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits for the script to end and returns its exit status (a signal's number + 128).
    func waitForExit(seconds: TimeInterval) throws -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        guard !process.isRunning else { throw PushgateInstance.Failure("scripts/run did not end:\n\(log)") }
        return process.terminationReason == .uncaughtSignal ? process.terminationStatus + 128 : process.terminationStatus
    }

    /// SIGTERM, and its exit status.
    func stop() throws -> Int32 {
        signal(SIGTERM)
        return try waitForExit(seconds: 120)
    }

    func stopIfRunning() {
        guard process.isRunning else { return }
        _ = try? stop()
    }

    /// `pushgate tokens list --json` on this run's database.
    func devices() throws -> [[String: Any]] {
        let list = try cli(["tokens", "list", "--json"])
        guard list.status == 0 else { throw PushgateInstance.Failure("tokens list failed: \(list.stderr)") }
        return try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]] ?? []
    }

    /// `pushgate ARGS` with this run's settings, as an operator runs it beside scripts/run.
    func cli(_ arguments: [String]) throws -> PushgateInstance.Output {
        try .of(PushgateInstance.executable.path, arguments, environment: environment)
    }
}
