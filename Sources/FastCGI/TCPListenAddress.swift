import Glibc

/// Where `serve` listens for FastCGI over TCP instead of its Unix socket (`PUSHGATE_LISTEN`):
/// one nginx then fronts responders on several hosts. An IPv4 address and a port, because that
/// is what libfcgi's listener binds (it takes `HOST:PORT` and resolves only IPv4); a host name
/// is refused rather than resolved, so the address bound is the one the operator wrote.
public struct TCPListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int

    /// nil unless `text` is `A.B.C.D:PORT` with a port of 1–65535.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
            let port = Int(portText), (1...65535).contains(port)
        else { return nil }
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return nil }
        self.host = host
        self.port = port
    }

    /// 127.0.0.0/8: only this host can connect. Anything else is reachable from the network,
    /// and FastCGI has no authentication: whoever connects is trusted as nginx.
    public var isLoopback: Bool { host.hasPrefix("127.") }

    public var description: String { "\(host):\(port)" }
}
