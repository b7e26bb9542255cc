import Dispatch
import PushCore

/// Counts and times every answer a platform's upstream gives: the transport one platform
/// client sends its pushes through (not the OAuth requests, see `RefreshCountingTransport`).
struct MeasuredTransport: HTTP2Transport {
    let inner: any HTTP2Transport
    let provider: Platform
    let metrics: DeliveryMetrics

    func submit(_ request: UpstreamRequest, completion: @escaping @Sendable (UpstreamOutcome) -> Void) {
        let start = DispatchTime.now().uptimeNanoseconds
        inner.submit(request) { [provider, metrics] outcome in
            let elapsed = DispatchTime.now().uptimeNanoseconds &- start
            let (status, reason) = Self.labels(outcome, provider: provider)
            metrics.recordUpstreamAnswer(provider: provider, status: status, reason: reason, nanoseconds: elapsed)
            completion(outcome)
        }
    }

    /// The HTTP status and the upstream's reason word; `none` and the failure's kind when no
    /// answer came. The body is read again only for refusals (rare), with the clients' own
    /// readers.
    static func labels(_ outcome: UpstreamOutcome, provider: Platform) -> (status: String, reason: String) {
        switch outcome {
        case .failure(let error):
            switch error {
            case .timeout: return ("none", "timeout")
            case .connectionLost: return ("none", "connection_lost")
            case .tls: return ("none", "tls")
            case .invalidRequest: return ("none", "invalid_request")
            case .shutDown: return ("none", "shut_down")
            }
        case .success(let response):
            // APNs and FCM accept with 200, push services with 201.
            guard !(200...299).contains(response.status) else { return (String(response.status), "ok") }
            let reason: String
            switch provider {
            case .apns:
                switch APNsVerdict.interpret(outcome, now: 0) {
                case .badDeviceToken: reason = "BadDeviceToken"
                case .dead(let text, _), .providerTokenRefused(let text), .rejected(_, let text),
                    .retryLater(let text, _):
                    reason = text
                case .delivered: reason = "ok"
                }
            case .fcm:
                switch FCMVerdict.interpret(outcome, now: 0) {
                case .dead(let text), .unauthenticated(let text), .rejected(_, let text), .retryLater(let text, _):
                    reason = text
                case .delivered: reason = "ok"
                }
            case .web:
                // Push services share no reason vocabulary: the verdict's word stands for one.
                switch WebPushVerdict.interpret(outcome, now: 0) {
                case .gone(let text), .credentialsRefused(_, let text), .rejected(_, let text), .retryLater(let text, _):
                    reason = text
                case .delivered: reason = "ok"
                }
            }
            return (String(response.status), UpstreamReasonLabel.bounded(reason))
        }
    }
}

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
