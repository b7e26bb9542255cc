import Foundation
import PushTesting
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// What systemd does with `pushgate.socket`, for a test: binds the FastCGI socket once and
/// starts `pushgate serve` again and again with that socket as descriptor 3 and LISTEN_FDS=1,
/// LISTEN_PID set to serve's own pid. `systemd-socket-activate` cannot: it execs its program,
/// so the socket ends with the first serve.
final class ServeSocketHolder {
    let path: String
    /// The listening socket, at a descriptor far from 3 so that it can be moved there.
    private let descriptor: Int32

    /// Binds and listens on `path` with the mode and group `packaging/pushgate.socket` gives it
    /// (0660, the group nginx's workers reach it through).
    init(path: String, group: UInt32?) throws {
        self.path = path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o755])
        let raw = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard raw >= 0 else { throw PushgateInstance.Failure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(raw, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0, listen(raw, 1024) == 0 else {
            let reason = String(cString: strerror(errno))
            close(raw)
            throw PushgateInstance.Failure("binding \(path): \(reason)")
        }
        if let group { chown(path, uid_t.max, gid_t(group)) }
        chmod(path, 0o660)
        descriptor = fcntl(raw, F_DUPFD_CLOEXEC, 100)
        close(raw)
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// Starts `executable serve` with the socket as descriptor 3, its output in `log`.
    func startServe(_ executable: String, environment: [String: String], log: URL) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, descriptor, 3)
        // systemd sets LISTEN_PID in the child it forked; a shell that execs serve keeps its pid.
        let script = #"export LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=pushgate.socket; exec "$0" serve"#
        let arguments = ["/bin/sh", "-c", script, executable]
        let environmentLines = environment.map { "\($0.key)=\($0.value)" }
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = environmentLines.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, "/bin/sh", &actions, nil, &argv, &envp)
        guard result == 0 else { throw PushgateInstance.Failure("posix_spawn: \(String(cString: strerror(result)))") }
        return pid
    }

    /// SIGTERM, as `systemctl restart` sends, and waits for serve to exit; its exit status.
    @discardableResult
    static func stop(_ pid: pid_t) -> Int32 {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}
