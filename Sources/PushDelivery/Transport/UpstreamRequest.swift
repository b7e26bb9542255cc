/// One HTTP request to an upstream, transport-neutral: the clients build these, the transport
/// sends them.
public struct UpstreamRequest: Sendable, Equatable {
    public var method: String
    /// An absolute `https://` URL.
    public var url: String
    /// Header names in lower case, as HTTP/2 sends them.
    public var headers: [HTTPHeader]
    public var body: [UInt8]
    /// The TLS client certificate to present (APNs certificate auth); nil for none.
    public var clientIdentity: ClientIdentity?
    /// Overrides the transport's total time-out for this request, in seconds.
    public var timeoutSeconds: Double?
    /// Judges every address the connection is about to be opened to (and a reused connection's
    /// before the request is sent); a refusal fails the request with
    /// `TransportError.invalidRequest`, and the refused address receives nothing.
    public var addressCheck: ConnectedAddressCheck?

    public init(
        method: String = "POST", url: String, headers: [HTTPHeader] = [], body: [UInt8] = [],
        clientIdentity: ClientIdentity? = nil, timeoutSeconds: Double? = nil, addressCheck: ConnectedAddressCheck? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.clientIdentity = clientIdentity
        self.timeoutSeconds = timeoutSeconds
        self.addressCheck = addressCheck
    }

    /// The first value of the header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One header field.
public struct HTTPHeader: Sendable, Equatable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A TLS client certificate and its private key, which the transport presents on the
/// connection. Connections are never shared between different identities.
public enum ClientIdentity: Sendable, Equatable, Hashable {
    /// Certificate (chain) and unencrypted key, both PEM.
    case pem(certificate: [UInt8], privateKey: [UInt8])
    /// A PKCS#12 (.p12) bundle holding both, with its password (may be empty).
    case pkcs12(bundle: [UInt8], password: String)
}
