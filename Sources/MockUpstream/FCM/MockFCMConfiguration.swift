import Foundation

/// How a `MockFCM` listens and what it accepts. Defaults: 127.0.0.1 on an ephemeral port, the
/// fixture TLS identity, no service accounts (register at least one).
public struct MockFCMConfiguration: MockServerConfiguration {
    public var host = "127.0.0.1"
    public var port = 0
    public var tls = MockTLSConfiguration.fixture
    /// Accounts whose RS256 assertions the token endpoint accepts.
    public var serviceAccounts: [MockFCMServiceAccount] = []
    /// The OAuth token endpoint's path (`token_uri` is `https://host:port` + this).
    public var tokenPath = "/token"
    /// `expires_in` of issued access tokens, seconds; Google answers 3599.
    public var accessTokenLifetime = 3599
    public var recordRequests = true
    public var recordBodies = true
    public var maxConcurrentStreams = 1000
    public var eventLoopThreads = ProcessInfo.processInfo.activeProcessorCount

    public init() {}

    public init(serviceAccounts: [MockFCMServiceAccount]) {
        self.serviceAccounts = serviceAccounts
    }
}
