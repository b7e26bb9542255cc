import Foundation
import Glibc

/// An HTTP/1.1 response as the test client read it off the wire.
struct HTTPTestResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

struct HTTPTestClientError: Error, CustomStringConvertible {
    var description: String
}

/// A tiny HTTP/1.1 client over a raw TCP socket: one request per connection with
/// `Connection: close`, reading until EOF. Raw on purpose: tests control every byte sent
/// (chunked bodies, odd targets) and see every byte received. Test support only.
enum HTTPTestClient {
    static func send(
        port: Int, method: String, target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        timeoutSeconds: Int = 10
    ) throws -> HTTPTestResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let chunked = headers.contains { $0.0.lowercased() == "transfer-encoding" }
        if !chunked && (!body.isEmpty || method == "POST" || method == "PUT") {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        return try sendRaw(port: port, bytes: Array(head.utf8) + body, timeoutSeconds: timeoutSeconds)
    }

    /// Sends `bytes` as they are and parses what comes back.
    static func sendRaw(port: Int, bytes: [UInt8], timeoutSeconds: Int = 10) throws -> HTTPTestResponse {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPTestClientError(description: "socket: \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw HTTPTestClientError(description: "connect to port \(port): errno \(errno)") }

        // A server may answer (413) and stop reading before the body is sent: keep going to the
        // answer whatever happens to the rest of the body. MSG_NOSIGNAL: no SIGPIPE.
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }
            offset += sent
        }

        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received.append(contentsOf: buffer[..<count])
            } else if count == 0 || !received.isEmpty {
                break  // EOF, or a reset after the answer arrived
            } else {
                throw HTTPTestClientError(description: "no answer from port \(port): errno \(errno)")
            }
        }
        return try parse(received)
    }

    static func parse(_ bytes: [UInt8]) throws -> HTTPTestResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
            throw HTTPTestClientError(description: "no header end in \(String(decoding: bytes, as: UTF8.self))")
        }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw HTTPTestClientError(description: "bad status line \(lines[0])")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        var body = Array(bytes[(end + 4)...])
        let response = HTTPTestResponse(status: status, headers: headers, body: body)
        if response.header("transfer-encoding")?.lowercased() == "chunked" {
            body = try dechunk(body)
        }
        return HTTPTestResponse(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) throws -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].firstIndex(of: 13) else { break }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";")[0]
            guard let size = Int(sizeText, radix: 16) else { throw HTTPTestClientError(description: "bad chunk size") }
            if size == 0 { break }
            let start = lineEnd + 2
            result.append(contentsOf: bytes[start..<min(start + size, bytes.count)])
            index = start + size + 2
        }
        return result
    }

    /// A port nothing listens on right now (the kernel's pick for port 0).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw HTTPTestClientError(description: "could not find a free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
