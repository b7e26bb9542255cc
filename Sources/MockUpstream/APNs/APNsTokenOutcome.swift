/// What the mock APNs says about one device token once a request for it is otherwise valid.
/// Tokens without an outcome are live in both environments.
public enum APNsTokenOutcome: Sendable, Equatable {
    /// 410 `Unregistered` with `timestamp`: the app was removed at `since` (milliseconds since
    /// 1970). A token registered again after that moment is alive.
    case unregistered(since: Int64)
    /// 410 `ExpiredToken`.
    case expired
    /// 400 `BadDeviceToken` in both environments.
    case bad
    /// Live in `environment` only; 400 `BadDeviceToken` in the other (the sandbox/production
    /// mix-up that clients should retry in the other environment once).
    case onlyIn(APNsEnvironment)
    /// Live for `topic` only; 400 `DeviceTokenNotForTopic` for any other topic.
    case onlyForTopic(String)
}
