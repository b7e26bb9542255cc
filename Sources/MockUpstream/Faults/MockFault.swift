/// A misbehaviour a test injects into a mock, in place of judging the request.
public enum MockFault: Sendable, Equatable {
    /// Answer `status` at once. For `MockAPNs` `reason` is Apple's reason string
    /// (`TooManyRequests`, `InternalServerError`, `ServiceUnavailable`, …); for `MockFCM` it is
    /// the FCM error code (`QUOTA_EXCEEDED`, `UNAVAILABLE`, `INTERNAL`, …) and the body takes
    /// Google's error shape. `retryAfter` (seconds) adds a `retry-after` header.
    case status(Int, reason: String, retryAfter: Int? = nil)
    /// Wait, then judge the request as usual: a slow upstream, for time-outs.
    case delay(Duration)
    /// Close the TCP connection abruptly (RST): this request and every other one in flight on
    /// the connection go unanswered.
    case resetConnection
    /// Send HTTP/2 GOAWAY saying this request was not processed, then close the connection.
    case goAway
}
