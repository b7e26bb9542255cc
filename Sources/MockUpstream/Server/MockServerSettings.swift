/// How a mock's listening socket and connections are set up.
struct MockServerSettings: Sendable {
    var host: String
    var port: Int
    var tls: MockTLSConfiguration
    /// ALPN offers, in preference order. Without `http/1.1` a client that negotiates nothing is
    /// spoken to in HTTP/2 anyway (APNs is HTTP/2 only).
    var protocols: [String]
    var maxConcurrentStreams: Int
    var eventLoopThreads: Int
    /// Bodies longer than this are cut (and flagged); the mocks refuse far smaller ones anyway.
    var maxBodyBytes: Int = 1 << 20
}
