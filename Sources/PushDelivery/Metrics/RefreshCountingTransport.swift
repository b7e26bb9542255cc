import PushCore

/// Counts the FCM side's OAuth access-token requests: the transport `AccessTokenCache`
/// fetches through, which sends nothing else.
public struct RefreshCountingTransport: HTTP2Transport {
    private let inner: any HTTP2Transport
    private let metrics: DeliveryMetrics

    public init(_ inner: any HTTP2Transport, metrics: DeliveryMetrics) {
        self.inner = inner
        self.metrics = metrics
    }

    public func submit(_ request: UpstreamRequest, completion: @escaping @Sendable (UpstreamOutcome) -> Void) {
        inner.submit(request) { [metrics] outcome in
            if case .success(let response) = outcome, response.status == 200 {
                metrics.countAccessTokenRefresh(succeeded: true)
            } else {
                metrics.countAccessTokenRefresh(succeeded: false)
            }
            completion(outcome)
        }
    }
}
