import Glibc

/// Why the FastCGI edge could not start: each case names the path or the step that failed.
public enum FastCGIError: Error, Equatable, CustomStringConvertible {
    /// Something accepted a connection on the socket path: another responder is serving there.
    case alreadyServing(path: String)
    /// The socket path is unusable as given (too long, contains `:`, empty).
    case invalidSocketPath(path: String, reason: String)
    /// A file that is not a socket sits at the socket path; it is left alone, never deleted.
    case notASocket(path: String)
    /// A system call on the socket path failed.
    case system(step: String, path: String, errno: Int32)
    /// The App's handler factory threw for a thread.
    case handlerCreationFailed(thread: Int, reason: String)
    /// `start` was called twice, or after `stop`.
    case alreadyStarted
    /// The socket systemd passed (LISTEN_FDS) is not one serve can listen on.
    case activationRefused(reason: String)

    public var description: String {
        switch self {
        case .alreadyServing(let path):
            return "another pushgate is serving on \(path); stop it first, or choose another socket path"
        case .invalidSocketPath(let path, let reason):
            return "cannot use \(path) as the FastCGI socket: \(reason)"
        case .notASocket(let path):
            return "\(path) exists and is not a socket; remove it or choose another socket path"
        case .system(let step, let path, let code):
            return "\(step) \(path) failed: \(String(cString: strerror(code)))"
        case .handlerCreationFailed(let thread, let reason):
            return "could not create the request handler for FastCGI thread \(thread): \(reason)"
        case .alreadyStarted:
            return "the FastCGI server was already started"
        case .activationRefused(let reason):
            return "cannot serve on the socket systemd passed (LISTEN_FDS): \(reason)"
        }
    }
}
