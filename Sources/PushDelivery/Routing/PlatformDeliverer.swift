import PushCore

/// What `APNsClient` and `FCMClient` have in common, so that the pipeline picks one by platform
/// without a `switch` (STYLE 1). `send` returns at once; `completion` runs exactly once, maybe
/// on the transport's thread, so it must be quick.
public protocol PlatformDeliverer: Sendable {
    var platform: Platform { get }
    func send(
        _ notification: PushCore.Notification, app: RegisteredApp,
        completion: @escaping @Sendable (DeliveryResult) -> Void)
}
