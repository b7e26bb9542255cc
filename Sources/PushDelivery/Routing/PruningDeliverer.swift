import Logging
import PushCore

/// Prunes the stored device of every push the upstream reports dead, for pushes sent directly
/// (not through the outbox, which prunes inside its own completion). Dialects push through
/// this, so a dead token leaves the store once, whichever dialect linked it.
public struct PruningDeliverer: Deliverer {
    private let inner: any Deliverer
    private let devices: any DevicePruning
    private let logger: Logger

    public init(_ inner: any Deliverer, devices: any DevicePruning, logger: Logger) {
        self.inner = inner
        self.devices = devices
        self.logger = logger
    }

    public func deliver(_ batch: [Notification]) -> [DeliveryResult] {
        let results = inner.deliver(batch)
        for (notification, result) in zip(batch, results) {
            guard case .deadToken(let reason, let since) = result, let deviceID = notification.deviceID else { continue }
            do {
                if try devices.pruneDevice(id: deviceID, deadSince: since) {
                    logger.info("pruned device \(deviceID) of \(notification.appID) (\(notification.token)): \(reason)")
                }
            } catch {
                // The push's result stands; the next push to this token will be refused again.
                logger.error("could not prune device \(deviceID): \(error)")
            }
        }
        return results
    }
}
