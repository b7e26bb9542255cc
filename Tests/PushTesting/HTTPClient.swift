import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A deliberately raw HTTP/1.1 client for tests: it sends exactly the bytes a test gives it
/// (malformed ones included) over a fresh loopback connection and reads until the server closes.
public struct HTTPClient: Sendable {
    public let port: Int
    /// How long one send or receive may block, in seconds. Clients are cheap: for another
    /// timeout on one call, make a client for it.
    public let timeoutSeconds: Int
    /// The loopback address the connection comes from (any of 127.0.0.0/8: Linux answers
    /// them all), so that a test can be several clients; nil: the kernel's pick, 127.0.0.1.
    public let sourceAddress: String?

    public init(port: Int, timeoutSeconds: Int = 30, sourceAddress: String? = nil) {
        self.port = port
        self.timeoutSeconds = timeoutSeconds
        self.sourceAddress = sourceAddress
    }

    public struct Response: Sendable {
        public let status: Int
        public let headers: [(name: String, value: String)]
        public let body: [UInt8]
        /// The response's first line as received (`HTTP/1.1 422 Unprocessable Entity`).
        public var statusLine = ""

        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public func get(_ target: String, headers: [String: String] = [:]) throws -> Response {
        try request("GET", target, headers: headers)
    }

    public func post(_ target: String, contentType: String?, body: [UInt8], headers: [String: String] = [:]) throws -> Response {
        var all = headers
        if let contentType { all["Content-Type"] = contentType }
        return try request("POST", target, headers: all, body: body)
    }

    public func post(_ target: String, contentType: String?, body: String, headers: [String: String] = [:]) throws -> Response {
        try post(target, contentType: contentType, body: Array(body.utf8), headers: headers)
    }

    /// Sends headers sorted by name; see the other `request` for what it adds.
    public func request(_ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []) throws -> Response {
        try request(method, target, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, body: body)
    }

    /// Sends headers in the order given, after `Host` and `Connection: close`. `Content-Length`
    /// is added for a body, a POST or a PUT unless the headers name a `Transfer-Encoding`: then
    /// the body goes out as given (a test writes the chunks itself).
    public func request(
        _ method: String, _ target: String, headers: [(String, String)], body: [UInt8] = []
    ) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
        }
        let framed = headers.contains { $0.0.lowercased() == "transfer-encoding" }
        if !framed && (!body.isEmpty || method == "POST" || method == "PUT") {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return try send(Array(head.utf8) + body)
    }

    /// Sends `bytes` as they are and parses what comes back.
    public func send(_ bytes: [UInt8]) throws -> Response {
        let fd = try connected()
        defer { close(fd) }
        write(bytes, to: fd)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count == 0 || !received.isEmpty {
                break  // EOF, or a reset after the answer arrived
            } else {
                throw Failure(description: "no answer from 127.0.0.1:\(port): errno \(errno)")
            }
        }
        return try Self.parse(received)
    }

    /// Sends `bytes`, closes its sending half and goes away without reading: the client that
    /// gives up mid-request (nginx then aborts the request it was passing on).
    public func sendAndHangUp(_ bytes: [UInt8]) throws {
        let fd = try connected()
        write(bytes, to: fd)
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    private func connected() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let sourceAddress {
            var source = sockaddr_in()
            source.sin_family = sa_family_t(AF_INET)
            guard inet_pton(AF_INET, sourceAddress, &source.sin_addr) == 1 else {
                close(fd)
                throw Failure(description: "not an IPv4 address: \(sourceAddress)")
            }
            let bound = withUnsafePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(fd)
                throw Failure(description: "bind to \(sourceAddress): errno \(errno)")
            }
        }
        var address = loopbackAddress(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return fd
    }

    /// A server may answer (413) and stop reading before the body is all sent: go on to its
    /// answer whatever happens to the rest. MSG_NOSIGNAL: a closed peer is no SIGPIPE.
    private func write(_ bytes: [UInt8], to fd: Int32) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { break }
            offset += sent
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw Failure(description: "no complete HTTP response in \(bytes.count) bytes: \(String(decoding: bytes, as: UTF8.self))")
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line \(head[0])")
        }
        var headers: [(String, String)] = []
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(bytes[(end + 4)...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") }) {
            body = try dechunk(body)
        }
        var response = Response(status: status, headers: headers, body: body)
        response.statusLine = head[0]
        return response
    }

    private static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) else { break }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";")[0]
            guard let size = Int(sizeText, radix: 16) else { throw Failure(description: "bad chunk size \(sizeText)") }
            if size == 0 { break }
            let start = lineEnd + 2
            output.append(contentsOf: bytes[start..<min(start + size, bytes.count)])
            index = start + size + 2
        }
        return output
    }
}
