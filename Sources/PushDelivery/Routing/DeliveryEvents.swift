import PushCore

/// Facts learnt while delivering that are not the push's result but that the store should
/// remember. Called on the transport's thread: implementations must not block (queue the write).
public protocol DeliveryEvents: Sendable {
    /// APNs answered `BadDeviceToken` in the environment the device was thought to use and
    /// accepted the push in the other: the device lives in `sandbox` from now on.
    func apnsEnvironmentCorrected(for notification: PushCore.Notification, sandbox: Bool)
}

/// For callers with no store to tell (tests, `pushgate send`).
public struct IgnoredDeliveryEvents: DeliveryEvents {
    public init() {}
    public func apnsEnvironmentCorrected(for notification: PushCore.Notification, sandbox: Bool) {}
}
