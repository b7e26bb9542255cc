import Glibc

/// The listening socket systemd passes to `serve` (socket activation: `pushgate.socket`, the
/// protocol of `sd_listen_fds(3)`). systemd binds it once and holds it while `serve` restarts,
/// so a connection that arrives in between waits in its backlog for the next `serve` instead
/// of failing. `serve` then makes, changes and removes no socket file: the unit owns it.
public struct ActivatedSocket: Sendable, Equatable, CustomStringConvertible {
    /// SD_LISTEN_FDS_START: the first descriptor the protocol passes.
    public static let firstDescriptor: Int32 = 3

    public enum Family: Sendable, Equatable {
        case unix
        case inet
        case inet6
    }

    public let descriptor: Int32
    public let family: Family
    /// The Unix socket's path, or `HOST:PORT` of a TCP one.
    public let address: String
    /// LISTEN_FDNAMES' name for it (FileDescriptorName=, by default the socket unit's name).
    public let name: String?

    /// A TCP socket: its peers are checked against `FastCGIConfiguration.tcpClients`.
    public var isTCP: Bool { family != .unix }

    /// The port of a TCP socket.
    public var port: Int? {
        guard isTCP, let colon = address.lastIndex(of: ":") else { return nil }
        return Int(address[address.index(after: colon)...])
    }

    public var description: String {
        (isTCP ? "tcp \(address)" : address) + " (passed by systemd" + (name.map { ", named \($0)" } ?? "") + ")"
    }

    /// The protocol's variables, which `take` reads and removes.
    public static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// The socket the process's environment passes, as `sd_listen_fds(1)` takes it: nil when
    /// LISTEN_FDS is unset, zero, or LISTEN_PID names another process (the variables were
    /// inherited from a parent that was activated, not meant for us). The variables are unset
    /// in every case, so that no program started later takes them for its own.
    /// - Throws: `FastCGIError.activationRefused` when they pass more than one descriptor, or
    ///   one that is not a listening stream socket: serve would otherwise serve somewhere nginx
    ///   does not connect, or nowhere.
    public static func take() throws(FastCGIError) -> ActivatedSocket? {
        var environment: [String: String] = [:]
        for key in variables {
            if let value = getenv(key) { environment[key] = String(cString: value) }
            unsetenv(key)
        }
        guard let descriptor = try passedDescriptor(environment, processID: getpid()) else { return nil }
        return try inspect(descriptor, name: environment["LISTEN_FDNAMES"].flatMap { $0.isEmpty ? nil : $0 })
    }

    /// The one descriptor the variables pass to the process `processID`, or nil (see `take`).
    static func passedDescriptor(_ environment: [String: String], processID: pid_t) throws(FastCGIError) -> Int32? {
        guard let count = environment["LISTEN_FDS"] else { return nil }
        guard let pid = environment["LISTEN_PID"].flatMap({ pid_t($0) }), pid == processID else { return nil }
        guard let number = Int(count), number >= 0 else {
            throw .activationRefused(reason: "LISTEN_FDS is \(count), not a number of descriptors")
        }
        if number == 0 { return nil }
        guard number == 1 else {
            throw .activationRefused(
                reason:
                    "LISTEN_FDS passes \(number) descriptors; serve listens on one socket (one ListenStream= in pushgate.socket)"
            )
        }
        return firstDescriptor
    }

    /// Checks that `descriptor` is a bound, listening stream socket of a family serve speaks,
    /// marks it close-on-exec (as `sd_listen_fds` does) and reads its address.
    static func inspect(_ descriptor: Int32, name: String?) throws(FastCGIError) -> ActivatedSocket {
        func option(_ option: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(descriptor, SOL_SOCKET, option, &value, &length) == 0 ? value : nil
        }
        func bound<Address>(_ address: Address) -> Address {
            var local = address
            var length = socklen_t(MemoryLayout<Address>.size)
            _ = withUnsafeMutablePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            return local
        }
        guard let type = option(SO_TYPE) else {
            throw .activationRefused(
                reason: "descriptor \(descriptor) is not a socket (\(String(cString: strerror(errno))))")
        }
        guard type == Int32(SOCK_STREAM.rawValue) else {
            throw .activationRefused(
                reason: "descriptor \(descriptor) is not a stream socket (ListenStream= in the socket unit)")
        }
        guard option(SO_ACCEPTCONN) == 1 else {
            throw .activationRefused(reason: "descriptor \(descriptor) is a socket nobody listens on")
        }
        let family: Family
        let address: String
        switch option(SO_DOMAIN) {
        case AF_UNIX:
            family = .unix
            address = withUnsafeBytes(of: bound(sockaddr_un()).sun_path) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
        case AF_INET:
            family = .inet
            let local = bound(sockaddr_in())
            address = "\(AddressText.of(family: AF_INET, local.sin_addr) ?? "?"):\(UInt16(bigEndian: local.sin_port))"
        case AF_INET6:
            family = .inet6
            let local = bound(sockaddr_in6())
            address =
                "[\(AddressText.of(family: AF_INET6, local.sin6_addr) ?? "?")]:\(UInt16(bigEndian: local.sin6_port))"
        default:
            throw .activationRefused(reason: "descriptor \(descriptor) is neither a Unix nor a TCP socket")
        }
        // serve runs no programs; this keeps the listener out of any that might, as systemd's
        // own sd_listen_fds does.
        _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        return ActivatedSocket(descriptor: descriptor, family: family, address: address, name: name)
    }
}
