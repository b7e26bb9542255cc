import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A PostgreSQL cluster of a test's own (`scripts/throwaway-postgres`), for tests that stop and
/// start the server under a running store: never the shared server of `scripts/test`, whose
/// other tests would fail meanwhile. Stopped and removed when released.
public final class ThrowawayPostgreSQL {
    public let directory: URL
    /// The libpq URL (unix socket in `directory`).
    public private(set) var url = ""

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Whether this machine can run one (PostgreSQL's server binaries are installed).
    public static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/15/bin/pg_ctl")
    }

    /// Creates the cluster and starts it.
    public init() throws {
        // Short: a unix socket path must stay under 108 bytes.
        directory = URL(fileURLWithPath: "/tmp/pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try start()
    }

    /// Starts the server (again, with its data, after `stop`).
    public func start() throws {
        url = try Self.script(["start", directory.path]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Stops the server (fast shutdown: open sessions are ended, as at a restart).
    public func stop() throws {
        _ = try Self.script(["stop", directory.path])
    }

    deinit {
        try? stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Spawned and waited for by hand, output through files: the server the script leaves
    /// running inherits its descriptors, and Foundation's `Process` waits until every
    /// holder of one of its own has exited, which a server that keeps running never does.
    private static func script(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-script-\(UUID().uuidString)")
        let errors = output.path + ".err"
        defer {
            try? FileManager.default.removeItem(at: output)
            try? FileManager.default.removeItem(atPath: errors)
        }
        let path = NginxProcess.repository.appendingPathComponent("scripts/throwaway-postgres").path
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw Failure(description: "cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // Exited normally (no signal) with status 0.
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw Failure(description: "throwaway-postgres \(arguments.joined(separator: " ")) failed: \(message)")
        }
        return (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    }
}
