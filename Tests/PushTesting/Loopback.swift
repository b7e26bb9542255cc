import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 that nothing listens on right now: the kernel's pick for port 0.
public func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw HTTPClient.Failure(description: "socket: errno \(errno)") }
    defer { close(fd) }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let found = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard found else { throw HTTPClient.Failure(description: "no free loopback port: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// 127.0.0.1:`port` as the socket calls take it.
func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}
