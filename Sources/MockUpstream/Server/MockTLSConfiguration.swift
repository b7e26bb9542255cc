import NIOSSL

/// The TLS identity a mock serves with, as PEM file paths. `clientCAFile` turns on certificate
/// authentication: a client may then present a certificate, which must chain to that CA.
public struct MockTLSConfiguration: Sendable, Equatable {
    public var certificateChainFile: String
    public var privateKeyFile: String
    /// Nil: no client certificates are asked for.
    public var clientCAFile: String?

    public init(certificateChainFile: String, privateKeyFile: String, clientCAFile: String? = nil) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        self.clientCAFile = clientCAFile
    }

    /// The committed test identity of `Tests/Fixtures/tls` (a server certificate for 127.0.0.1
    /// and localhost, signed by `ca.pem`), without client certificates.
    public static var fixture: MockTLSConfiguration {
        MockTLSConfiguration(
            certificateChainFile: MockFixtures.tls("server.pem"), privateKeyFile: MockFixtures.tls("server.key"))
    }

    /// The fixture identity, also accepting client certificates signed by `client-ca.pem`.
    public static var fixtureWithClientCertificates: MockTLSConfiguration {
        var configuration = fixture
        configuration.clientCAFile = MockFixtures.tls("client-ca.pem")
        return configuration
    }

    /// A server context offering `protocols` by ALPN, in order of preference.
    func makeContext(protocols: [String]) throws -> NIOSSLContext {
        let chain = try NIOSSLCertificate.fromPEMFile(certificateChainFile).map {
            NIOSSLCertificateSource.certificate($0)
        }
        let key = try NIOSSLPrivateKey(file: privateKeyFile, format: .pem)
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        tls.applicationProtocols = protocols
        if let clientCAFile {
            // Optional, not required: token-auth clients on the same server present no certificate.
            tls.certificateVerification = .optionalVerification
            tls.trustRoots = .file(clientCAFile)
            tls.sendCANameList = true
        }
        return try NIOSSLContext(configuration: tls)
    }
}
