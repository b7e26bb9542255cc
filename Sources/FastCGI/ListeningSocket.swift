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
        let path = configuration.socketPath
        try SocketFile.prepare(path)
        if FCGX_Init() != 0 {
            throw FastCGIError.system(step: "initialising libfcgi for", path: path, errno: errno)
        }
        // Unlinks the path first, unasked: SocketFile.prepare made sure nobody serves there.
        let descriptor = FCGX_OpenSocket(path, configuration.listenBacklog)
        if descriptor < 0 {
            throw FastCGIError.system(step: "listening on", path: path, errno: errno)
        }
        if chmod(path, mode_t(configuration.socketMode)) != 0 {
            let code = errno
            _ = Glibc.close(descriptor)
            unlink(path)
            throw FastCGIError.system(step: "setting the mode of", path: path, errno: code)
        }
        return ListeningSocket(descriptor: descriptor, path: path, identity: SocketFile.identity(of: path))
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
