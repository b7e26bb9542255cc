/// What `MockAPNs`, `MockFCM` and `MockWebPush` offer alike once started.
public protocol MockService: AnyObject, Sendable {
    associatedtype Configuration: MockServerConfiguration
    var configuration: Configuration { get }
    /// The port actually bound (useful when `configuration.port` is 0).
    var port: Int { get }
    /// Every request judged, with counters.
    var log: RequestLog { get }
}

extension MockService {
    /// `https://127.0.0.1:<port>` (the configured host): what a client is pointed at
    /// (`PUSHGATE_APNS_URL`, `PUSHGATE_FCM_URL`), and for Web Push the origin of every
    /// endpoint, what the allow-list must name.
    public var baseURL: String { "https://\(configuration.host):\(port)" }

    /// Shorthand for `log.requests`.
    public var requests: [RecordedRequest] { log.requests }

    /// Shorthand for `log.waitForRequests(count:timeout:)`.
    @discardableResult
    public func waitForRequests(count: Int, timeout: Duration = .seconds(10)) -> Bool {
        log.waitForRequests(count: count, timeout: timeout)
    }
}
