import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PushTesting
import XCTest

/// A real pushgate for a test: `pushgate serve` on a socket in a temporary folder with the real
/// nginx in front of it on a free loopback port, started and stopped by the test itself.
final class PushgateInstance {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// `swift test` runs the test bundle from the folder the `pushgate` executable is built in.
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        .deletingLastPathComponent().appendingPathComponent("pushgate")

    let directory: URL
    let port: Int
    let socket: String
    let database: String
    private(set) var serve: Process?

    /// Whether `pushgate serve` is still running.
    var isServing: Bool { serve?.isRunning ?? false }
    private var nginx: NginxProcess?
    private let extraEnvironment: [String: String]
    /// What render-nginx reads: serve's `PUSHGATE_MATRIX_HOMESERVERS` unless given apart.
    private let nginxEnvironment: [String: String]
    /// Runs on the rendered nginx prefix before nginx starts: a test that needs a variation
    /// of the configuration (another listen line) sets it before `start()`.
    var adjustNginx: (URL) throws -> Void = { _ in }
    /// With PUSHGATE_TEST_DATABASE_URL set, the instance stores in PostgreSQL instead of
    /// SQLite: in a schema of its own (made by psql), dropped by `stop()`.
    private let postgreSQLSchema: String?
    private static let postgreSQLTestURL: String? = {
        let url = ProcessInfo.processInfo.environment["PUSHGATE_TEST_DATABASE_URL"] ?? ""
        return url.isEmpty ? nil : url
    }()

    /// `migrated`: the database is created first, as `scripts/run` does before an operator
    /// runs a command (only `migrate` and `serve` create one).
    /// `nginxEnvironment`: render-nginx's settings, when they differ from serve's (a test of
    /// serve's own check of what nginx lets through).
    init(environment: [String: String] = [:], nginxEnvironment: [String: String]? = nil, migrated: Bool = true) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushgate-it-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // The folder must be traversable by nginx's worker user to reach the socket.
        chmod(directory.path, 0o755)
        port = try freeLoopbackPort()
        socket = directory.appendingPathComponent("run/pushgate.sock").path
        database = directory.appendingPathComponent("pushgate.sqlite").path
        extraEnvironment = environment
        self.nginxEnvironment = nginxEnvironment ?? environment.filter { $0.key == "PUSHGATE_MATRIX_HOMESERVERS" }
        if Self.postgreSQLTestURL != nil {
            let schema = "it_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            postgreSQLSchema = schema
            try psql("CREATE SCHEMA \(schema)")
        } else {
            postgreSQLSchema = nil
        }
        if migrated {
            let migrate = try cli(["migrate"])
            guard migrate.status == 0 else { throw Failure("pushgate migrate failed: \(migrate.stderr)") }
        }
    }

    /// The URL `pushgate` gets: the test server's, with this instance's schema first on the
    /// search path (libpq's `options`).
    var postgreSQLURL: String? {
        guard let base = Self.postgreSQLTestURL, let postgreSQLSchema else { return nil }
        return base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + postgreSQLSchema
    }

    private func psql(_ command: String) throws {
        guard let url = Self.postgreSQLTestURL else { return }
        let output = try run("/usr/bin/psql", ["-X", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", command])
        guard output.status == 0 else { throw Failure("psql \(command) failed: \(output.stderr)") }
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHGATE_") }
        environment["PUSHGATE_DB"] = database
        environment["PUSHGATE_SOCKET"] = socket
        environment["PUSHGATE_THREADS"] = "8"
        // Tests create many devices from one loopback address; the quota's own tests set it lower.
        environment["PUSHGATE_NEW_DEVICES_PER_HOUR"] = "100000"
        // The socket is 0660: nginx's workers reach it through its group.
        if let group = NginxProcess.workerGroup { environment["PUSHGATE_SOCKET_GROUP"] = group }
        if let postgreSQLURL { environment["PUSHGATE_DATABASE_URL"] = postgreSQLURL }
        for (key, value) in extraEnvironment { environment[key] = value }
        return environment
    }

    /// Starts both servers and waits until nginx answers through the responder.
    func start() throws {
        let migrate = try cli(["migrate"])
        guard migrate.status == 0 else { throw Failure("pushgate migrate failed: \(migrate.stderr)") }
        serve = try launch(Self.executable.path, ["serve"], log: "serve.log")
        try waitFor("the socket \(socket)") { FileManager.default.fileExists(atPath: self.socket) }
        try startNginx()
    }

    /// Starts nginx in front of a serve the test started itself (see `ServeSocketHolder`), and
    /// waits until it answers through it.
    func startNginx() throws {
        let maxBody = Int(extraEnvironment["PUSHGATE_MAX_BODY_BYTES"] ?? "1048576")! * 2
        nginx = try NginxProcess(
            prefix: directory.appendingPathComponent("nginx"), port: port, socketPath: socket, maxBody: String(maxBody),
            environment: nginxEnvironment, adjust: adjustNginx)
        try waitFor("pushgate through nginx on port \(port)") { (try? self.client.get("/healthz").status) == 200 }
    }

    /// `kill -9` of `pushgate serve`, as a crash: no shutdown code runs. nginx stays up.
    func killServe() {
        guard let serve, serve.isRunning else { return }
        kill(serve.processIdentifier, SIGKILL)
        serve.waitUntilExit()
        // A killed responder cannot remove its socket file; a new one replaces it.
        try? FileManager.default.removeItem(atPath: socket)
    }

    /// Starts `pushgate serve` again after `killServe()`, logging to `log` (the first run's
    /// log stays for failure messages), and waits until it answers through nginx.
    func restartServe(log: String = "serve-restarted.log") throws {
        serve = try launch(Self.executable.path, ["serve"], log: log)
        try waitFor("the socket \(socket)") { FileManager.default.fileExists(atPath: self.socket) }
        try waitFor("pushgate through nginx after a restart") { (try? self.client.get("/healthz").status) == 200 }
    }

    func stop() {
        nginx?.stop()
        if let serve, serve.isRunning {
            serve.terminate()
            serve.waitUntilExit()
        }
        nginx = nil
        serve = nil
        // XCTest may keep a test's instance alive until the run ends: the schema goes now.
        if let postgreSQLSchema { try? psql("DROP SCHEMA IF EXISTS \(postgreSQLSchema) CASCADE") }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    var client: HTTPClient { HTTPClient(port: port) }

    /// A client connecting from another loopback address (127.0.0.2, …): another caller.
    func client(from sourceAddress: String) -> HTTPClient { HTTPClient(port: port, sourceAddress: sourceAddress) }

    /// The responder's log so far, for assertions and failure messages.
    var serveLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("serve.log"), encoding: .utf8)) ?? ""
    }

    /// Waits for `text` in serve's log: a request's line is written after its answer is sent.
    func waitForServeLog(containing text: String) throws {
        try waitFor("\"\(text)\" in serve's log") { serveLog.contains(text) }
    }

    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    /// Runs `pushgate ARGS` against this instance's database.
    func cli(_ arguments: [String]) throws -> Output {
        try run(Self.executable.path, arguments)
    }

    /// `pushgate tokens list --json`, parsed.
    func storedDevices() throws -> [[String: Any]] {
        let output = try cli(["tokens", "list", "--json"])
        guard output.status == 0 else { throw Failure("tokens list failed: \(output.stderr)") }
        return try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [[String: Any]] ?? []
    }

    func run(_ path: String, _ arguments: [String], stdin: String? = nil) throws -> Output {
        try Output.of(path, arguments, environment: environment, stdin: stdin)
    }

    /// Runs SQL on the instance's database with the engine's own client, as an operator (or
    /// an accident) would; its rows as `a|b` lines. A statement that fails fails the test.
    @discardableResult
    func sql(_ statement: String) throws -> String {
        let output: Output
        if let url = postgreSQLURL {
            output = try run(
                "/usr/bin/psql", ["-X", "-q", "-A", "-t", "-F", "|", "-v", "ON_ERROR_STOP=1", url, "-c", statement])
        } else {
            output = try run("/usr/bin/sqlite3", [database, statement])
        }
        XCTAssertEqual(output.status, 0, "\(statement): \(output.stderr)")
        return output.stdout
    }

    private func launch(_ path: String, _ arguments: [String], log: String) throws -> Process {
        try Self.launch(path, arguments, environment: environment, log: directory.appendingPathComponent(log))
    }

    /// Starts `path` in the background with its output and errors both in the file `log`
    /// (made empty first) and nothing on its input.
    static func launch(_ path: String, _ arguments: [String], environment: [String: String], log: URL) throws
        -> Process
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    private func waitFor(_ what: String, timeout: TimeInterval = 20, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return }
            if let serve, !serve.isRunning { throw Failure("pushgate serve exited while waiting for \(what):\n\(serveLog)") }
            usleep(20_000)
        }
        throw Failure("timed out waiting for \(what):\n\(serveLog)")
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
