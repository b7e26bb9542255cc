import Foundation
import PushCore
import PushDelivery

/// Records what delivery told the store on the side.
public final class RecordingEvents: DeliveryEvents, @unchecked Sendable {
    public init() {}
    private let lock = NSLock()
    private var corrections: [(token: DeviceToken, sandbox: Bool)] = []

    public func apnsEnvironmentCorrected(for notification: PushCore.Notification, sandbox: Bool) {
        lock.withLock { corrections.append((notification.token, sandbox)) }
    }

    public var environmentCorrections: [(token: DeviceToken, sandbox: Bool)] { lock.withLock { corrections } }
}
