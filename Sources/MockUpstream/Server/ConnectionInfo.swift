/// What the server knows about the connection a request came on.
struct ConnectionInfo: Sendable {
    /// Numbered from 1 in accept order, so a test can see how many connections a client used.
    var id: Int
    /// The client presented a certificate and TLS verified it against the configured client CA.
    var hasVerifiedClientCertificate: Bool
}
