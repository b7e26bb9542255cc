import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP socket listening on 127.0.0.1 that never accepts: whether a connection waits in its
/// backlog says whether a client ever connected (the kernel completes the handshake without
/// `accept`), with no waiting and no timing. Also a loopback port something already listens on.
public final class LoopbackListener {
    public let port: Int
    private let fd: Int32

    public struct Failure: Error { public let errno: Int32 }

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard fd >= 0, bound == 0, listen(fd, 8) == 0 else {
            let failure = Failure(errno: errno)
            close(fd)
            throw failure
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    public var hasPendingConnection: Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0 && entry.revents & Int16(POLLIN) != 0
    }

    deinit { close(fd) }
}
