import Foundation

/// How a `MockWebPush` listens and what it accepts. Defaults: 127.0.0.1 on an ephemeral port,
/// the fixture TLS identity, the limits of Mozilla's autopush.
public struct MockWebPushConfiguration: MockServerConfiguration {
    public var host = "127.0.0.1"
    public var port = 0
    public var tls = MockTLSConfiguration.fixture
    /// Bodies longer than this are answered 413 (RFC 8030 §7.2: services accept at least 4,096).
    public var maximumBodyLength = 4096
    /// Autopush bounds TTL to 30 days.
    public var maximumTTL = 2_592_000
    /// The longest VAPID `exp` ahead of now (RFC 8292 §2: 24 hours).
    public var maximumTokenLifetime = 24 * 60 * 60
    public var recordRequests = true
    public var recordBodies = true
    /// Called on an event loop with each message accepted and decrypted (`pushgate-mock`
    /// prints them); keep it short.
    public var onMessage: (@Sendable (MockWebPushMessage) -> Void)?
    public var maxConcurrentStreams = 1000
    public var eventLoopThreads = ProcessInfo.processInfo.activeProcessorCount

    public init() {}
}
