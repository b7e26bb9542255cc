import Glibc

/// The socket's place on disk: checks the path, clears a socket a crashed responder left behind,
/// refuses to take over one that a live responder still serves, and removes only its own file.
enum SocketFile {
    /// What sits at the socket path before we bind.
    enum Occupant: Equatable {
        case nothing
        /// A socket nobody accepts on: left by a responder that died without cleaning up.
        case staleSocket
        /// A socket something accepts on.
        case liveSocket
        case notASocket
    }

    /// Which file we bound, so that stopping never removes a socket another responder made since.
    struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    static func validate(_ path: String) throws {
        if path.isEmpty {
            throw FastCGIError.invalidSocketPath(path: path, reason: "the path is empty")
        }
        // libfcgi's FCGX_OpenSocket reads "HOST:PORT" (and ":PORT") as a TCP address.
        if path.contains(":") {
            throw FastCGIError.invalidSocketPath(path: path, reason: "libfcgi would read a ':' as HOST:PORT")
        }
        if path.utf8.count > UnixSocketAddress.maxPathBytes {
            throw FastCGIError.invalidSocketPath(
                path: path, reason: "longer than the \(UnixSocketAddress.maxPathBytes) bytes a Unix socket path may have")
        }
    }

    /// Makes the path ready for `FCGX_OpenSocket`, which unlinks whatever is there unasked:
    /// hence the check for a live responder first.
    static func prepare(_ path: String) throws {
        try validate(path)
        try createParentDirectory(of: path)
        switch try occupant(of: path) {
        case .nothing:
            return
        case .liveSocket:
            throw FastCGIError.alreadyServing(path: path)
        case .notASocket:
            // A mistyped path must not cost the operator a file (the database, say).
            throw FastCGIError.notASocket(path: path)
        case .staleSocket:
            if unlink(path) != 0 && errno != ENOENT {
                throw FastCGIError.system(step: "removing the stale socket", path: path, errno: errno)
            }
        }
    }

    static func occupant(of path: String) throws -> Occupant {
        var info = stat()
        if lstat(path, &info) != 0 {
            if errno == ENOENT { return .nothing }
            throw FastCGIError.system(step: "inspecting", path: path, errno: errno)
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else { return .notASocket }
        guard let address = UnixSocketAddress(path: path) else {
            throw FastCGIError.invalidSocketPath(path: path, reason: "not a valid Unix socket path")
        }
        // Non-blocking, so that a live responder with a full backlog answers EAGAIN instead of
        // holding us in connect().
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        if probe < 0 {
            throw FastCGIError.system(step: "creating a socket to probe", path: path, errno: errno)
        }
        defer { close(probe) }
        if address.withSockaddr({ connect(probe, $0, $1) }) == 0 { return .liveSocket }
        switch errno {
        case EAGAIN, EINPROGRESS: return .liveSocket
        case ECONNREFUSED: return .staleSocket
        case ENOENT: return .nothing
        default: throw FastCGIError.system(step: "probing", path: path, errno: errno)
        }
    }

    static func identity(of path: String) -> Identity? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Removes the socket file if it is still the one we bound.
    static func remove(_ path: String, ifStill identity: Identity?) {
        guard let identity, self.identity(of: path) == identity else { return }
        unlink(path)
    }

    /// `mkdir -p` of the socket's directory with mode 0755: nginx's workers, another user, must
    /// be able to pass through it to reach the socket.
    private static func createParentDirectory(of path: String) throws {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let parent = String(path[..<slash])
        var prefix = parent.hasPrefix("/") ? "/" : ""
        for component in parent.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o755) == 0 {
                chmod(prefix, 0o755)  // whatever the umask
            } else if errno != EEXIST {
                throw FastCGIError.system(step: "creating the directory", path: prefix, errno: errno)
            }
            prefix += "/"
        }
    }
}
