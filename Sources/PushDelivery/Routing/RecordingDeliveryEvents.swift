import Dispatch
import Logging
import PushCore

/// Writes what the delivery clients learn back to the store. Events arrive on the curl
/// engine's thread, which must never wait for a database lock: each write is queued to a
/// serial queue with its own connection.
public final class RecordingDeliveryEvents: DeliveryEvents, @unchecked Sendable {
    // @unchecked: `records` is used only on `queue`.
    private let records: any DeviceDeliveryRecord
    private let queue = DispatchQueue(label: "pushgate.delivery-events")
    private let logger: Logger

    public init(records: any DeviceDeliveryRecord, logger: Logger) {
        self.records = records
        self.logger = logger
    }

    public func apnsEnvironmentCorrected(for notification: PushCore.Notification, sandbox: Bool) {
        guard let deviceID = notification.deviceID else { return }
        queue.async { [records, logger] in
            do {
                try records.setSandbox(sandbox, deviceID: deviceID)
                logger.info(
                    "device \(deviceID) of \(notification.appID) answers in the APNs \(sandbox ? "sandbox" : "production") environment: remembered")
            } catch {
                logger.error("could not remember the APNs environment of device \(deviceID): \(error)")
            }
        }
    }

    /// Nothing to start: writes queue as deliveries report them.
    public func start() {}

    /// Waits for the queued writes, for an orderly stop.
    public func stop() {
        queue.sync {}
    }
}

extension RecordingDeliveryEvents: Service {
    public var serviceName: String { "delivery records" }
}
