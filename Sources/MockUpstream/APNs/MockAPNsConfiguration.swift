import Foundation

/// How a `MockAPNs` listens and what it accepts. Defaults: 127.0.0.1 on an ephemeral port, the
/// fixture TLS identity, production, no provider keys (register at least one, or a client CA).
public struct MockAPNsConfiguration: MockServerConfiguration {
    public var host = "127.0.0.1"
    public var port = 0
    /// Set `clientCAFile` to accept certificate-based provider authentication.
    public var tls = MockTLSConfiguration.fixture
    public var environment = APNsEnvironment.production
    /// Keys whose ES256 provider tokens are accepted.
    public var providerKeys: [MockAPNsProviderKey] = []
    /// Topics that token-authenticated requests may push to; nil allows any.
    public var allowedTopics: Set<String>?
    /// Topics a client certificate covers (an Apple push certificate covers its bundle id and
    /// that id's `.voip`, `.complication`, … sub-topics). The first is the default topic when a
    /// certificate-authenticated request names none, as Apple takes it from the certificate.
    public var certificateTopics = ["com.example.pushgate"]
    /// A new provider token for a key arriving sooner than this after the previous new one is
    /// refused with 429 `TooManyProviderTokenUpdates`, as Apple does. Tests may set zero.
    public var providerTokenUpdateInterval: Duration = .seconds(20 * 60)
    /// Provider tokens whose `iat` is older than this get 403 `ExpiredProviderToken`.
    public var providerTokenLifetime: Duration = .seconds(60 * 60)
    public var recordRequests = true
    public var recordBodies = true
    /// Check that bodies are JSON objects (400 `BadPayload` otherwise). Costs a parse per request.
    public var validatesPayloadJSON = true
    /// Advertised in SETTINGS; Apple's servers advertise 1,000 (fewer at first).
    public var maxConcurrentStreams = 1000
    public var eventLoopThreads = ProcessInfo.processInfo.activeProcessorCount

    public init() {}

    /// A configuration that accepts tokens signed by `providerKeys`.
    public init(providerKeys: [MockAPNsProviderKey], environment: APNsEnvironment = .production) {
        self.providerKeys = providerKeys
        self.environment = environment
    }
}
