import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One FastCGI request written straight to pushgate's socket with the CGI params a test
/// chooses (nginx would set REMOTE_ADDR from the peer; here the test says what it is), as the
/// FastCGI 1.0 specification's records: BEGIN_REQUEST, PARAMS, STDIN in; STDOUT, END_REQUEST out.
struct FastCGIRequest {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// What the responder wrote: the CGI head parsed, the body as text.
    struct Reply {
        let status: Int
        let headers: [String: String]
        let body: String
    }

    let params: [(String, String)]

    func send(toSocket path: String) throws -> Reply {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect \(path): \(String(cString: strerror(errno)))") }
        return try exchange(on: descriptor)
    }

    /// The request over TCP to `host:port`, from the local address `source` (a 127.0.0.x:
    /// another host, as far as the listener can tell).
    func send(toHost host: String, port: Int, from source: String) throws -> Reply {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        func address(_ text: String, port: Int) throws -> sockaddr_in {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, text, &address.sin_addr) == 1 else { throw Failure(description: "not IPv4: \(text)") }
            return address
        }
        var local = try address(source, port: 0)
        var remote = try address(host, port: port)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        guard withUnsafePointer(to: &local, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }) == 0
        else { throw Failure(description: "bind \(source): \(String(cString: strerror(errno)))") }
        guard withUnsafePointer(to: &remote, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) } }) == 0
        else { throw Failure(description: "connect \(host):\(port): \(String(cString: strerror(errno)))") }
        return try exchange(on: descriptor)
    }

    private func exchange(on descriptor: Int32) throws -> Reply {
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        var out: [UInt8] = []
        out += Self.record(type: 1, content: [0, 1, 0, 0, 0, 0, 0, 0])
        var encoded: [UInt8] = []
        for (name, value) in params {
            encoded +=
                Self.length(name.utf8.count) + Self.length(value.utf8.count) + Array(name.utf8) + Array(value.utf8)
        }
        out += Self.record(type: 4, content: encoded)
        out += Self.record(type: 4, content: [])
        out += Self.record(type: 5, content: [])
        guard out.withUnsafeBytes({ Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == out.count else {
            throw Failure(description: "send failed: \(String(cString: strerror(errno)))")
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
        guard let split = text.range(of: "\r\n\r\n") else { throw Failure(description: "no CGI head in \(text)") }
        var headers: [String: String] = [:]
        for line in text[..<split.lowerBound].components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let status = Int(headers["status"]?.prefix(3) ?? "200") ?? 0
        return Reply(status: status, headers: headers, body: String(text[split.upperBound...]))
    }

    private static func length(_ count: Int) -> [UInt8] {
        count < 128
            ? [UInt8(count)]
            : [
                UInt8(0x80 | (count >> 24)), UInt8((count >> 16) & 0xff), UInt8((count >> 8) & 0xff),
                UInt8(count & 0xff),
            ]
    }

    private static func record(type: UInt8, content: [UInt8]) -> [UInt8] {
        [1, type, 0, 1, UInt8(content.count >> 8), UInt8(content.count & 0xff), 0, 0] + content
    }

    private static func read(_ count: Int, from descriptor: Int32) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let received = bytes.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress! + filled, count - filled, 0)
            }
            guard received > 0 else { throw Failure(description: "the responder closed the connection mid-reply") }
            filled += received
        }
        return bytes
    }
}
