import Logging

/// What became of one push, as a value: one place acts on it (prune, retry, report).
public enum DeliveryResult: Sendable, Equatable {
    /// The upstream accepted it; `id` is the `apns-id` or FCM message name.
    case delivered(id: String?)
    /// The token will never work again: the device is pruned. `since` is APNs' 410
    /// `timestamp` (milliseconds since 1970): a token re-registered after it is alive.
    case deadToken(reason: String, since: Int64?)
    /// The upstream refused this push (payload, topic, credentials); the token stays.
    case rejected(status: Int, reason: String)
    /// A fault that may pass (429, 5xx, time-out, connection loss): try again after the
    /// upstream's `Retry-After` when it gave one.
    case retryLater(reason: String, afterSeconds: Int?)

    public var isDelivered: Bool {
        if case .delivered = self { return true }
        return false
    }
}
