import CFastCGI
import Glibc

/// The listening socket: opened through libfcgi, or passed by systemd. The descriptor, which
/// file it is so that closing never removes a socket another responder made since, and whether
/// another process (systemd) holds the same socket.
struct ListeningSocket {
    let descriptor: Int32
    let path: String
    private let identity: SocketFile.Identity?
    /// systemd holds the same socket and keeps it listening after we exit: connections that
    /// arrive while serve restarts wait in its backlog for the next serve.
    private let isShared: Bool

    /// Clears a stale socket, refuses a live one, binds, listens, sets the file's mode; or takes
    /// the socket systemd passed, as it is.
    static func open(_ configuration: FastCGIConfiguration) throws -> ListeningSocket {
        if let activated = configuration.activatedSocket {
            // libfcgi's request state needs it, even though it opens no socket here.
            try initialiseLibfcgi(activated.address)
            return ListeningSocket(descriptor: activated.descriptor, path: activated.address, identity: nil, isShared: true)
        }
        if let address = configuration.tcpAddress {
            return try open(address, backlog: configuration.listenBacklog)
        }
        let path = configuration.socketPath
        try SocketFile.prepare(path)
        try initialiseLibfcgi(path)
        // Unlinks the path first, unasked: SocketFile.prepare made sure nobody serves there.
        let descriptor = FCGX_OpenSocket(path, configuration.listenBacklog)
        if descriptor < 0 {
            throw FastCGIError.system(step: "listening on", path: path, errno: errno)
        }
        if let group = configuration.socketGroup, chown(path, uid_t.max, gid_t(group)) != 0 {
            let code = errno
            _ = Glibc.close(descriptor)
            unlink(path)
            throw FastCGIError.system(step: "setting the group (\(group)) of", path: path, errno: code)
        }
        if chmod(path, mode_t(configuration.socketMode)) != 0 {
            let code = errno
            _ = Glibc.close(descriptor)
            unlink(path)
            throw FastCGIError.system(step: "setting the mode of", path: path, errno: code)
        }
        return ListeningSocket(
            descriptor: descriptor, path: path, identity: SocketFile.identity(of: path), isShared: false)
    }

    /// A TCP listener: libfcgi reads `HOST:PORT` as one. No file to clear or remove.
    private static func open(_ address: TCPListenAddress, backlog: Int32) throws -> ListeningSocket {
        let name = address.description
        try initialiseLibfcgi(name)
        let descriptor = FCGX_OpenSocket(name, backlog)
        if descriptor < 0 {
            throw FastCGIError.system(step: "listening on", path: "tcp \(name)", errno: errno)
        }
        return ListeningSocket(descriptor: descriptor, path: name, identity: nil, isShared: false)
    }

    /// `FCGX_Init` also installs a SIGUSR1 handler (mod_fastcgi's "finish and exit") that makes
    /// every later accept fail, for good: a stray SIGUSR1, such as log rotation scripts send,
    /// would leave the process alive and deaf. The process's own disposition is put back; the
    /// no-op SIGPIPE handler it installs is kept (a write to a closed connection then fails
    /// with EPIPE instead of killing the process).
    private static func initialiseLibfcgi(_ path: String) throws {
        var previous = sigaction()
        sigaction(SIGUSR1, nil, &previous)
        let result = FCGX_Init()
        sigaction(SIGUSR1, &previous, nil)
        if result != 0 {
            throw FastCGIError.system(step: "initialising libfcgi for", path: path, errno: errno)
        }
    }

    /// Removes the socket file (if it is still ours): nginx then fails fast with 502 instead of
    /// queueing on a socket nobody will accept on again.
    func removeFile() {
        SocketFile.remove(path, ifStill: identity)
    }

    /// Stops the socket taking connections, so that nginx fails fast (502) rather than queueing
    /// on a socket nobody will accept on again. Not a socket systemd shares: shutdown(2) acts on
    /// the socket, not the descriptor, and would reset the connections waiting in its backlog
    /// and deafen it for the next serve. Closing our descriptor (`close`) leaves it listening.
    func shutDown() {
        guard !isShared else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}
