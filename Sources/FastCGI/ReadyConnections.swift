import CFastCGI
import Foundation
import Glibc

/// The listening socket and every connection nginx keeps open between requests
/// (`fastcgi_keep_conn on`), in one epoll set that all responder threads wait on. A thread
/// takes whichever connection has a request to read, answers it, and parks the connection
/// again; so threads are bound to requests, not to connections, and nginx may keep as many
/// idle connections as it likes. (A thread that waited on its own kept connection would be
/// lost to every other connection while nginx left that one idle.)
///
/// Every registration is one-shot: a ready connection wakes one thread and stays quiet until
/// that thread parks it again.
final class ReadyConnections: @unchecked Sendable {
    // @unchecked: `parked` is guarded by `lock`; the descriptors are only read after init.
    private let epoll: Int32
    private let listener: Int32
    /// For a TCP listener, the hosts that may connect and where refusals are logged; nil for
    /// the Unix socket, whose file mode decides who connects (its accept asks no address).
    private let clients: (allowed: FastCGIClients, log: RefusedConnectionLog)?
    private let lock = NSLock()
    /// Kept connections waiting for their next request, to close when the server stops.
    private var parked = DescriptorSet()
    /// Set when the server begins to stop: a connection is closed once its answer is written
    /// instead of being kept (see `closeIdle`).
    private var closing = false

    init(listener: Int32, clients: (allowed: FastCGIClients, log: RefusedConnectionLog)? = nil) throws(FastCGIError) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw .system(step: "creating the epoll set for", path: "the socket", errno: errno) }
        // Non-blocking: a readiness that another thread's accept already used up must not
        // leave this one blocked in accept.
        let flags = fcntl(listener, F_GETFL)
        guard flags >= 0, fcntl(listener, F_SETFL, flags | O_NONBLOCK) == 0 else {
            let code = errno
            _ = Glibc.close(epoll)
            throw .system(step: "making the listening socket non-blocking for", path: "the socket", errno: code)
        }
        self.epoll = epoll
        self.listener = listener
        self.clients = clients
        guard arm(listener) else {
            let code = errno
            _ = Glibc.close(epoll)
            throw .system(step: "watching the listening socket for", path: "the socket", errno: code)
        }
    }

    /// What a wait gave.
    enum Readiness {
        /// A connection with something to read: a new one, accepted here, or a parked one (its
        /// next request, or nginx closing it).
        case connection(Int32)
        /// The time ran out, or another thread took what was ready.
        case nothing
        /// accept(2) failed with this errno; accepting pauses for a moment (see `next`).
        case acceptFailed(Int32)
    }

    /// How long the listener rests after accept(2) failed for want of descriptors or memory.
    static let acceptPauseMicroseconds: UInt32 = 50_000

    /// Waits up to `timeoutMilliseconds` for a connection with something to read.
    func next(timeoutMilliseconds: Int32) -> Readiness {
        var event = epoll_event()
        guard epoll_wait(epoll, &event, 1, timeoutMilliseconds) == 1 else { return .nothing }
        let descriptor = event.data.fd
        guard descriptor != listener else { return acceptOne() }
        lock.lock()
        // Every other descriptor in the set was parked; one `closeIdle` took meanwhile is closed.
        let wasParked = parked.contains(descriptor)
        parked.remove(descriptor)
        lock.unlock()
        return wasParked ? .connection(descriptor) : .nothing
    }

    private func acceptOne() -> Readiness {
        // Room for an IPv6 peer: a TCP socket systemd passes may be IPv6 (ListenStream=PORT
        // binds [::]), its IPv4 peers then mapped (::ffff:A.B.C.D).
        var peer = sockaddr_in6()
        var peerLength = socklen_t(MemoryLayout<sockaddr_in6>.size)
        let connection =
            clients == nil
            ? accept(listener, nil, nil)
            : withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listener, $0, &peerLength) }
            }
        guard connection >= 0 else {
            let code = errno
            // The connection waiting stays ready: re-armed at once, the listener would wake a
            // thread for the same failure again and again, all threads spinning while the
            // process is out of descriptors. Resting here keeps the others serving what is
            // open, whose closing frees descriptors.
            if code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM {
                usleep(Self.acceptPauseMicroseconds)
            }
            _ = arm(listener)
            return code == EAGAIN || code == EWOULDBLOCK || code == EINTR ? .nothing : .acceptFailed(code)
        }
        _ = arm(listener)
        if let clients, !clients.allowed.allows(peer) {
            // Closed before a byte is read: a stranger's REMOTE_ADDR is never believed. Counted
            // before the close, so that the log names strangers in the order they came: after
            // it, the next one may be refused on another thread and logged first.
            clients.log.refused(from: Self.describe(peer), allowed: clients.allowed)
            _ = Glibc.close(connection)
            return .nothing
        }
        // serve runs no other programs; this only keeps the descriptor out of any that might.
        _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
        return .connection(connection)
    }

    private static func describe(_ peer: sockaddr_in6) -> String {
        let text =
            if let address = FastCGIClients.ipv4Address(of: peer) {
                AddressText.of(family: AF_INET, in_addr(s_addr: address.bigEndian))
            } else {
                AddressText.of(family: AF_INET6, peer.sin6_addr)
            }
        return text ?? "an unknown address"
    }

    /// A kept connection waits for nginx's next request on it.
    func park(_ connection: Int32) {
        lock.lock()
        guard !closing else {
            lock.unlock()
            _ = Glibc.close(connection)
            return
        }
        parked.insert(connection)
        lock.unlock()
        if !arm(connection) {
            // Not watched, it would never be served again: close it, nginx opens another.
            lock.withLock { parked.remove(connection) }
            _ = Glibc.close(connection)
        }
    }

    /// Closes the idle kept connections as the server begins to stop, and every connection
    /// once its answer is written from then on. nginx then meets a closed connection when it
    /// next writes to one and opens a new connection, which waits in the listening socket's
    /// backlog for the next `serve` (systemd holds it): no request is sent on a connection
    /// nobody will read while the lanes drain, which could last a minute of a slow upstream
    /// and then cost a POST its answer (nginx sends a POST again only if it never wrote it).
    func closeIdle() {
        lock.lock()
        closing = true
        let idle = parked.descriptors
        parked = DescriptorSet()
        lock.unlock()
        for connection in idle { _ = Glibc.close(connection) }
    }

    /// Closes the parked connections and the epoll set, once no thread waits on them.
    func close() {
        lock.lock()
        let idle = parked.descriptors
        parked = DescriptorSet()
        lock.unlock()
        for connection in idle { _ = Glibc.close(connection) }
        _ = Glibc.close(epoll)
    }

    /// Watches `descriptor` for one readiness. A descriptor seen before is re-enabled; a new
    /// one (or a number reused after a close, which drops it from the set) is added.
    private func arm(_ descriptor: Int32) -> Bool {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue | EPOLLONESHOT.rawValue
        event.data.fd = descriptor
        if epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event) == 0 { return true }
        return errno == ENOENT && epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0
    }
}
