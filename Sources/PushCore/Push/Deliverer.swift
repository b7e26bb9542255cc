import Logging

/// Sends pushes upstream. `deliver` sends a batch concurrently and answers each push's result
/// in the batch's order; it blocks the calling thread until all are answered.
public protocol Deliverer: Sendable {
    func deliver(_ batch: [Notification]) -> [DeliveryResult]

    /// The same, with the lines it logs (a pruned device, say) on `logger`: a request's,
    /// carrying its id, when a request is what sends the batch.
    func deliver(_ batch: [Notification], logger: Logger) -> [DeliveryResult]

    /// The same without blocking: returns once the batch is handed on, and `completion` gets
    /// the results on `home` (maybe before this returns). A request's pushes go this way, so
    /// that the request is parked while they wait on the upstream, not a thread.
    func deliver(
        _ batch: [Notification], logger: Logger, home: any HomeThread,
        completion: @escaping @Sendable ([DeliveryResult]) -> Void)
}

extension Deliverer {
    /// For deliverers that log nothing of their own.
    public func deliver(_ batch: [Notification], logger: Logger) -> [DeliveryResult] {
        deliver(batch)
    }

    /// For deliverers that only block (fakes, wrappers of one): on the calling thread, which
    /// is `home` when the caller keeps the contract of calling from there.
    public func deliver(
        _ batch: [Notification], logger: Logger, home: any HomeThread,
        completion: @escaping @Sendable ([DeliveryResult]) -> Void
    ) {
        completion(deliver(batch, logger: logger))
    }
}
