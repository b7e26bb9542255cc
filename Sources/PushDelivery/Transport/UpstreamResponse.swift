/// An upstream's reply, whatever its status.
public struct UpstreamResponse: Sendable, Equatable {
    public var status: Int
    /// Header names in lower case.
    public var headers: [HTTPHeader]
    public var body: [UInt8]

    public init(status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of the header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name == wanted }?.value
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Why a request got no reply. The message is the transport's own (libcurl's error buffer).
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No reply within the connect or total time-out.
    case timeout(String)
    /// The connection failed or broke before the reply was complete (refused, reset, GOAWAY,
    /// HTTP/2 stream error).
    case connectionLost(String)
    /// The TLS handshake failed: an untrusted or mismatched server certificate, a refused or
    /// unreadable client certificate.
    case tls(String)
    /// The request could not be sent at all (a malformed URL, a protocol other than https).
    case invalidRequest(String)
    /// The transport was shut down before the request completed.
    case shutDown

    public var description: String {
        switch self {
        case .timeout(let message): return "timed out: \(message)"
        case .connectionLost(let message): return "connection lost: \(message)"
        case .tls(let message): return "TLS failure: \(message)"
        case .invalidRequest(let message): return "invalid request: \(message)"
        case .shutDown: return "transport shut down"
        }
    }
}
