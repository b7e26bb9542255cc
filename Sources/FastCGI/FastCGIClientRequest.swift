import Glibc

/// One request to a FastCGI responder, written as nginx writes it: BEGIN_REQUEST, the CGI
/// params the caller chooses, an empty STDIN; read back are STDOUT up to END_REQUEST (FastCGI
/// 1.0, one request per connection). `pushgate doctor` asks a running `serve` with it whether
/// it answers, and tests speak to `serve` past nginx with it (REMOTE_ADDR is whatever the
/// params say: whoever may connect is trusted as nginx).
public struct FastCGIClientRequest: Sendable {
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public enum Reason: Equatable, Sendable {
            /// `connect` failed with this errno (ENOENT, ECONNREFUSED, EACCES, …).
            case cannotConnect(Int32)
            /// Nothing came back within the timeout.
            case timedOut
            /// The responder closed the connection before END_REQUEST.
            case closed
            /// A socket call failed, or the reply was not a CGI response.
            case other
        }

        public let reason: Reason
        public let description: String

        public init(reason: Reason, description: String) {
            self.reason = reason
            self.description = description
        }
    }

    /// What the responder wrote: the CGI head parsed (names lowercased), the body as text.
    public struct Reply: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: String
    }

    public let params: [(String, String)]
    /// How long connecting, and then each read of the reply, may wait.
    public let timeoutSeconds: Int

    public init(params: [(String, String)], timeoutSeconds: Int = 30) {
        self.params = params
        self.timeoutSeconds = max(1, timeoutSeconds)
    }

    public func send(toSocket path: String) throws -> Reply {
        guard let address = UnixSocketAddress(path: path) else {
            throw Failure(reason: .other, description: "not a socket path: \(path)")
        }
        let descriptor = try openSocket(AF_UNIX)
        defer { close(descriptor) }
        let connected = address.withSockaddr { connect(descriptor, $0, $1) }
        guard connected == 0 else { throw Self.connectFailure(to: path) }
        return try exchange(on: descriptor)
    }

    /// The request over TCP to `host:port` (IPv4), from the local address `source` when given
    /// (tests use a 127.0.0.x: another host, as far as the listener can tell).
    public func send(toHost host: String, port: Int, from source: String? = nil) throws -> Reply {
        func address(_ text: String, port: Int) throws -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else {
                throw Failure(reason: .other, description: "not an IPv4 address: \(text)")
            }
            return address
        }
        var remote = try address(host, port: port)
        let descriptor = try openSocket(AF_INET)
        defer { close(descriptor) }
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        if let source {
            var local = try address(source, port: 0)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
            }
            guard bound == 0 else { throw Failure(reason: .other, description: "bind \(source): \(Self.lastError())") }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
        guard connected == 0 else { throw Self.connectFailure(to: "\(host):\(port)") }
        return try exchange(on: descriptor)
    }

    /// A blocking socket whose connect, sends and reads each give up after the timeout
    /// (Linux applies SO_SNDTIMEO to connect too).
    private func openSocket(_ family: Int32) throws -> Int32 {
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(reason: .other, description: "socket: \(Self.lastError())") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    private func exchange(on descriptor: Int32) throws -> Reply {
        var out: [UInt8] = []
        // BEGIN_REQUEST: role 1 (responder), flags 0 (the responder closes the connection).
        out += Self.record(type: 1, content: [0, 1, 0, 0, 0, 0, 0, 0])
        var encoded: [UInt8] = []
        for (name, value) in params {
            encoded += Self.length(name.utf8.count) + Self.length(value.utf8.count) + Array(name.utf8) + Array(value.utf8)
        }
        // A record holds at most 65,535 bytes of content.
        var offset = 0
        while offset < encoded.count {
            let end = min(offset + 65_535, encoded.count)
            out += Self.record(type: 4, content: Array(encoded[offset..<end]))
            offset = end
        }
        out += Self.record(type: 4, content: [])
        out += Self.record(type: 5, content: [])
        var sent = 0
        while sent < out.count {
            let written = out.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress! + sent, out.count - sent, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw Self.ioFailure("sending the request") }
            sent += written
        }
        var stdout: [UInt8] = []
        while true {
            let header = try Self.read(8, from: descriptor)
            let length = Int(header[4]) << 8 | Int(header[5])
            let content = try Self.read(length + Int(header[6]), from: descriptor)
            if header[1] == 6 { stdout += content.prefix(length) }
            if header[1] == 3 { break }
        }
        return try Self.parse(String(decoding: stdout, as: UTF8.self))
    }

    private static func parse(_ text: String) throws -> Reply {
        guard let split = text.range(of: "\r\n\r\n") else {
            throw Failure(reason: .other, description: "no CGI head in the reply: \(text.prefix(200))")
        }
        var headers: [String: String] = [:]
        for line in text[..<split.lowerBound].split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers[line[..<colon].lowercased()] = String(value)
        }
        let status = Int(headers["status"]?.prefix(3) ?? "200") ?? 0
        return Reply(status: status, headers: headers, body: String(text[split.upperBound...]))
    }

    private static func length(_ count: Int) -> [UInt8] {
        count < 128
            ? [UInt8(count)]
            : [UInt8(0x80 | (count >> 24)), UInt8((count >> 16) & 0xff), UInt8((count >> 8) & 0xff), UInt8(count & 0xff)]
    }

    private static func record(type: UInt8, content: [UInt8]) -> [UInt8] {
        [1, type, 0, 1, UInt8(content.count >> 8), UInt8(content.count & 0xff), 0, 0] + content
    }

    private static func read(_ count: Int, from descriptor: Int32) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let received = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + filled, count - filled, 0) }
            if received == 0 {
                throw Failure(reason: .closed, description: "the responder closed the connection before its reply ended")
            }
            guard received > 0 else { throw ioFailure("reading the reply") }
            filled += received
        }
        return bytes
    }

    private static func connectFailure(to target: String) -> Failure {
        let code = errno
        if code == EAGAIN || code == EINPROGRESS {
            return Failure(reason: .timedOut, description: "connect \(target): timed out")
        }
        return Failure(reason: .cannotConnect(code), description: "connect \(target): \(String(cString: strerror(code)))")
    }

    private static func ioFailure(_ what: String) -> Failure {
        let code = errno
        if code == EAGAIN || code == EWOULDBLOCK {
            return Failure(reason: .timedOut, description: "\(what): timed out")
        }
        if code == ECONNRESET || code == EPIPE {
            return Failure(reason: .closed, description: "\(what): the responder closed the connection")
        }
        return Failure(reason: .other, description: "\(what): \(String(cString: strerror(code)))")
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }
}
