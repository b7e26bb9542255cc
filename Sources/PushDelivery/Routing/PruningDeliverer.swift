import Logging
import PushCore

/// Prunes the stored device of every push the upstream reports dead, for pushes sent directly
/// (not through the outbox, which prunes inside its own completion). Dialects push through
/// this, so a dead token leaves the store once, whichever dialect linked it. With `records`,
/// the outcome of every push to a stored device is written back to it as well.
public struct PruningDeliverer: Deliverer {
    private let inner: any Deliverer
    private let devices: any DevicePruning
    private let records: (any DeviceDeliveryRecord)?
    private let clock: UnixClock
    private let logger: Logger

    public init(
        _ inner: any Deliverer, devices: any DevicePruning, records: (any DeviceDeliveryRecord)? = nil,
        clock: UnixClock = .system, logger: Logger
    ) {
        self.inner = inner
        self.devices = devices
        self.records = records
        self.clock = clock
        self.logger = logger
    }

    public func deliver(_ batch: [Notification]) -> [DeliveryResult] {
        deliver(batch, logger: logger)
    }

    /// `logger`: the request's, so that its prunes carry its id.
    public func deliver(_ batch: [Notification], logger: Logger) -> [DeliveryResult] {
        let results = inner.deliver(batch)
        prune(batch, results, logger: logger)
        return results
    }

    /// The store work runs on `home`, whose connection this deliverer's store is.
    public func deliver(
        _ batch: [Notification], logger: Logger, home: any HomeThread,
        completion: @escaping @Sendable ([DeliveryResult]) -> Void
    ) {
        inner.deliver(batch, logger: logger, home: home) { results in
            prune(batch, results, logger: logger)
            completion(results)
        }
    }

    private func prune(_ batch: [Notification], _ results: [DeliveryResult], logger: Logger) {
        record(batch, results, logger: logger)
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
    }

    /// One transaction for the whole batch; a pruned device is skipped by the store.
    private func record(_ batch: [Notification], _ results: [DeliveryResult], logger: Logger) {
        guard let records else { return }
        let outcomes = zip(batch, results).compactMap { notification, result in
            notification.deviceID.map { (deviceID: $0, summary: result.summary) }
        }
        do {
            try records.recordOutcomes(outcomes, now: Int64(clock.now()))
        } catch {
            logger.error("could not record delivery outcomes: \(error)")
        }
    }
}
