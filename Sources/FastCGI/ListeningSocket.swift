import CFastCGI
import Glibc

/// The listening Unix socket, opened through libfcgi: the descriptor, and which file it is so
/// that closing never removes a socket another responder made since.
struct ListeningSocket {
    let descriptor: Int32
    let path: String
    private let identity: SocketFile.Identity?

    /// Clears a stale socket, refuses a live one, binds, listens, sets the file's mode.
    static func open(_ configuration: FastCGIConfiguration) throws -> ListeningSocket {
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
        return ListeningSocket(descriptor: descriptor, path: path, identity: SocketFile.identity(of: path))
    }

    /// A TCP listener: libfcgi reads `HOST:PORT` as one. No file to clear or remove.
    private static func open(_ address: TCPListenAddress, backlog: Int32) throws -> ListeningSocket {
        let name = address.description
        try initialiseLibfcgi(name)
        let descriptor = FCGX_OpenSocket(name, backlog)
        if descriptor < 0 {
            throw FastCGIError.system(step: "listening on", path: "tcp \(name)", errno: errno)
        }
        return ListeningSocket(descriptor: descriptor, path: name, identity: nil)
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

    /// Wakes every thread blocked in accept(): they return with an error and see the stop flag.
    func shutDown() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}
