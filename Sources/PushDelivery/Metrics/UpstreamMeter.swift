import Dispatch
import PushCore

/// Counts and times every answer a platform's upstream gives to the pushes its client sends
/// (not the OAuth requests, see `RefreshCountingTransport`). The client starts it as it
/// submits a request and records the outcome first thing in that request's completion: no
/// transport wrapped around the engine, so no hop or closure of its own per request.
struct UpstreamMeter: Sendable {
    let provider: Platform
    let metrics: DeliveryMetrics

    /// The start of a request, to pass back to `record`.
    static func start() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func record(_ outcome: UpstreamOutcome, since start: UInt64) {
        let elapsed = DispatchTime.now().uptimeNanoseconds &- start
        let (status, reason) = Self.labels(outcome, provider: provider)
        metrics.recordUpstreamAnswer(provider: provider, status: status, reason: reason, nanoseconds: elapsed)
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
