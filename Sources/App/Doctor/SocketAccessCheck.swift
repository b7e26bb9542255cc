import Foundation

/// nginx's worker user can reach the FastCGI socket: it passes through (search permission)
/// every directory from `/` down and may write to the socket. When it cannot, nginx answers
/// 502 to every request while `serve` looks healthy.
struct SocketAccessCheck {
    let socket: String
    let worker: UserIdentity
    /// systemd's unit that makes the socket, when one does: the advice is then its settings'.
    var socketUnit: SocketUnit? = nil

    func run() -> [DoctorFinding] {
        let absolute = URL(fileURLWithPath: socket).standardizedFileURL.path
        var findings: [DoctorFinding] = []
        var directory = "/"
        var components = absolute.split(separator: "/").map(String.init)
        let name = components.popLast() ?? ""
        var directories = ["/"]
        for component in components {
            directory = (directory as NSString).appendingPathComponent(component)
            directories.append(directory)
        }
        for directory in directories {
            var info = stat()
            guard stat(directory, &info) == 0 else {
                let maker =
                    socketUnit.map { "is pushgate.socket (\($0.path)) running? `systemctl status pushgate.socket`" }
                    ?? "is `pushgate serve` running with PUSHGATE_SOCKET=\(absolute)?"
                findings.append(.problem("socket", "\(directory) does not exist: \(maker)"))
                return findings
            }
            if !worker.may(.search, mode: info.st_mode, owner: info.st_uid, group: info.st_gid) {
                findings.append(.problem("socket", closedDirectory(directory, info)))
            }
        }
        var info = stat()
        guard lstat(absolute, &info) == 0 else {
            let maker =
                socketUnit.map {
                    "pushgate.socket (\($0.path)) listens there but is not running: `systemctl enable --now pushgate.socket`"
                } ?? "`pushgate serve` is not running (systemctl status pushgate), or runs with another PUSHGATE_SOCKET"
            findings.append(.problem("socket", "no socket at \(absolute): \(maker)"))
            return findings
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            findings.append(.problem("socket", "\(absolute) is not a socket: remove it and restart serve"))
            return findings
        }
        if !worker.may(.write, mode: info.st_mode, owner: info.st_uid, group: info.st_gid) {
            let fix =
                socketUnit.map {
                    "set SocketGroup= to a group \(worker.name) is in (SocketMode=0660 lets that group connect) with "
                        + "`systemctl edit pushgate.socket` (it is \($0.path)'s socket), then "
                        + "`systemctl restart pushgate.socket pushgate`"
                }
                ?? "set PUSHGATE_SOCKET_GROUP to a group \(worker.name) is in (PUSHGATE_SOCKET_MODE 0660 lets that group connect)"
            findings.append(
                .problem(
                    "socket",
                    "\(worker.name) may not connect to \(absolute) (mode \(Self.octal(info.st_mode)), \(Self.owners(info))): "
                        + fix + "; not 0666, which lets every local user speak FastCGI to serve"))
        }
        if findings.isEmpty {
            findings.append(.ok("socket", "\(worker.name) (nginx's workers) can reach \(absolute) (\(name))"))
        }
        return findings
    }

    private func closedDirectory(_ directory: String, _ info: stat) -> String {
        let group = UserIdentity.groupName(of: info.st_gid)
        let start = "\(worker.name) (nginx's workers) cannot pass through \(directory) (mode \(Self.octal(info.st_mode)), "
            + "\(Self.owners(info))), so nginx answers 502 to every request: `chmod o+x \(directory)`"
        // Joining root's group is no advice to give.
        guard info.st_gid != 0 else { return start }
        return start + ", or `chmod g+x \(directory)` and add \(worker.name) to group \(group)"
    }

    static func octal(_ mode: mode_t) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }

    static func owners(_ info: stat) -> String {
        "owner \(UserIdentity.name(of: info.st_uid)):\(UserIdentity.groupName(of: info.st_gid))"
    }
}
