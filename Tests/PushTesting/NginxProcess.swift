import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The real nginx for a test: rendered by `scripts/render-nginx` into a prefix and run in the
/// foreground as a child process, the way `scripts/run` runs it.
public final class NginxProcess {
    public let prefix: URL
    public let port: Int
    private let process = Process()

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The group nginx's workers run in as the tests start nginx: as root without a `user`
    /// line they are nginx's built-in `nobody`, in Debian's `nogroup`; otherwise they are the
    /// test's own user, who owns the socket anyway (nil). A 0660 socket must be in this group.
    public static var workerGroup: String? { geteuid() == 0 ? "nogroup" : nil }

    /// `workerGroup`'s id, for servers the tests configure directly.
    public static var workerGroupID: UInt32? {
        guard let name = workerGroup, let entry = getgrnam(name) else { return nil }
        return UInt32(entry.pointee.gr_gid)
    }

    /// The checkout, found from this file's path (Tests/PushTesting/NginxProcess.swift).
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Renders the configuration, starts nginx and returns once it answers `/nginx-health`.
    /// - Parameters:
    ///   - prefix: the folder for the configuration, logs and temporary files (created).
    ///   - port: the port on 127.0.0.1 to listen on.
    ///   - socketPath: the responder's FastCGI socket.
    ///   - maxBody: nginx's body limit as render-nginx takes it (`64k`, `2097152`).
    ///   - workers: worker processes; nil for render-nginx's default (one per core).
    ///   - environment: settings render-nginx reads (`PUSHGATE_MATRIX_HOMESERVERS`), beside
    ///     `workers`.
    ///   - adjust: runs on the rendered prefix before nginx starts (tests that need a variation
    ///     of the configuration).
    public init(
        prefix: URL, port: Int, socketPath: String, maxBody: String, workers: Int? = nil,
        environment renderEnvironment: [String: String] = [:], adjust: (URL) throws -> Void = { _ in }
    ) throws {
        self.prefix = prefix
        self.port = port
        let render = Process()
        render.executableURL = Self.repository.appendingPathComponent("scripts/render-nginx")
        render.arguments = [prefix.path, String(port), socketPath, maxBody]
        // render-nginx reads PUSHGATE_NGINX_*: only what the test asks for reaches it.
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PUSHGATE_") }
        if let workers { environment["PUSHGATE_NGINX_WORKERS"] = String(workers) }
        environment.merge(renderEnvironment) { _, given in given }
        render.environment = environment
        let output = Pipe()
        render.standardOutput = output
        render.standardError = output
        try render.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        render.waitUntilExit()
        guard render.terminationStatus == 0 else { throw Failure(description: "render-nginx failed: \(text)") }

        try adjust(prefix)

        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let nginx else { throw Failure(description: "nginx is not installed (apt-get install nginx)") }
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = [
            "-p", prefix.path, "-c", prefix.appendingPathComponent("nginx.conf").path,
            "-e", prefix.appendingPathComponent("logs/error.log").path, "-g", "daemon off;",
        ]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try waitUntilServing()
    }

    private func waitUntilServing() throws {
        let client = HTTPClient(port: port, timeoutSeconds: 1)
        for _ in 0..<100 {
            if (try? client.get("/nginx-health").status) == 200 { return }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        stop()
        throw Failure(description: "nginx did not start on port \(port): \(errorLog)")
    }

    /// nginx's error log so far, for failure messages.
    public var errorLog: String {
        (try? String(contentsOf: prefix.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
    }

    /// SIGQUIT (graceful: requests in flight finish), then SIGKILL if it is still there after
    /// 10 s; returns once nginx has exited. Stopping twice is harmless.
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGQUIT)
        for _ in 0..<200 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
