/// What each mock's configuration says alike: where it listens, how its connections are set
/// up, and what its `RequestLog` keeps. `pushgate-mock` sets these the same way for every mock.
public protocol MockServerConfiguration: Sendable {
    var host: String { get set }
    /// 0: any free port; read the bound one from the mock's `port`.
    var port: Int { get set }
    var tls: MockTLSConfiguration { get set }
    /// Keep each request in `log` (counters are kept regardless).
    var recordRequests: Bool { get set }
    /// Keep bodies in the recorded requests.
    var recordBodies: Bool { get set }
    /// Advertised in SETTINGS.
    var maxConcurrentStreams: Int { get set }
    var eventLoopThreads: Int { get set }
}
