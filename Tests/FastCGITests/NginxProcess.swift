import Foundation
import Glibc

/// nginx rendered by `scripts/render-nginx` into a temporary prefix and run as a child process,
/// the way `scripts/run` runs it. Test support.
final class NginxProcess {
    let prefix: URL
    let port: Int
    private let process = Process()

    /// The checkout, found from this file's path (Tests/FastCGITests/NginxProcess.swift).
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// - Parameter adjust: runs on the rendered prefix before nginx starts (tests that need a
    ///   variation of the configuration).
    init(prefix: URL, port: Int, socketPath: String, maxBody: String, adjust: (URL) throws -> Void = { _ in }) throws {
        self.prefix = prefix
        self.port = port
        let render = Process()
        render.executableURL = Self.repository.appendingPathComponent("scripts/render-nginx")
        render.arguments = [prefix.path, String(port), socketPath, maxBody]
        var environment = ProcessInfo.processInfo.environment
        environment["PUSHGATE_NGINX_WORKERS"] = "1"
        render.environment = environment
        let output = Pipe()
        render.standardOutput = output
        render.standardError = output
        try render.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        render.waitUntilExit()
        guard render.terminationStatus == 0 else {
            throw HTTPTestClientError(description: "render-nginx failed: \(text)")
        }

        try adjust(prefix)

        let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let nginx else {
            throw HTTPTestClientError(description: "nginx is not installed (apt-get install nginx)")
        }
        process.executableURL = URL(fileURLWithPath: nginx)
        process.arguments = [
            "-p", prefix.path, "-c", prefix.appendingPathComponent("nginx.conf").path,
            "-e", prefix.appendingPathComponent("logs/error.log").path, "-g", "daemon off;",
        ]
        try process.run()
        try waitUntilServing()
    }

    private func waitUntilServing() throws {
        for _ in 0..<100 {
            if let response = try? HTTPTestClient.send(port: port, method: "GET", target: "/nginx-health", timeoutSeconds: 1),
                response.status == 200
            {
                return
            }
            guard process.isRunning else { break }
            usleep(50_000)
        }
        throw HTTPTestClientError(description: "nginx did not start: \(errorLog)")
    }

    var errorLog: String {
        (try? String(contentsOf: prefix.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
    }

    /// SIGQUIT (graceful), then SIGKILL if it is still there after 10 s.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGQUIT)
        for _ in 0..<200 where process.isRunning { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}
