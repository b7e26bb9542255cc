/// The Diffusion push bridge's subscriptions: which devices asked (`pnsub`) for the pushes of
/// which topic selectors, and the fan-out of a publish to every device whose selector matches.
/// Selectors are stored in one canonical spelling (see PushAPI's `TopicSelector`), so the
/// store compares strings and never interprets one.
public protocol BridgeSubscriptionStore: Sendable {
    /// In one transaction: the device for (app, token) (created when new) and its link to
    /// `selector`. Returns false when the link already existed (a repeated `pnsub`). Throws
    /// `TooManySubscriptions`, storing nothing, for a new link of a device that has
    /// `BridgeLimits.subscriptionsPerDevice` already.
    func subscribe(appID: AppID, token: DeviceToken, reportedToken: String, selector: String) throws -> Bool
    /// In one transaction: removes the link, and the device when no owner is left. Returns
    /// false when there was no such subscription.
    func unsubscribe(appID: AppID, token: DeviceToken, selector: String) throws -> Bool
    /// In one transaction: finds every device subscribed to any of `selectors` that `message`
    /// has a half for (APNs devices need `apns`, FCM devices `fcm`) and queues `message` once
    /// for each in the outbox, leaving out the devices of apps not in `apps` (nil: every
    /// app, a sender key without an app scope). Returns the rows queued and the devices left
    /// out.
    func enqueueTopicPush(
        _ message: OutboxMessage, subscribedToAnyOf selectors: [String], within apps: Set<AppID>?
    ) throws -> ScopedFanOut
}

/// What one unauthenticated bridge client may store: `pnsub` needs no secret, so without a
/// bound one device could grow the store without end.
public enum BridgeLimits {
    public static let subscriptionsPerDevice = 1_000
}

/// A `pnsub` refused because its device has `limit` subscriptions already.
public struct TooManySubscriptions: Error, Equatable {
    public let limit: Int

    public init(limit: Int) {
        self.limit = limit
    }
}
