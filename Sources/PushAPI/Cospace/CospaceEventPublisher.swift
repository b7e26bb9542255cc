import PushCore

/// Queues a push event for every device of its owner in the durable outbox.
public struct CospaceEventPublisher: Sendable {
    private let users: any CospaceUserStore
    private let outbox: any OutboxStore
    private let notify: @Sendable () -> Void

    /// - Parameter notify: wakes the outbox worker of this process (none for the CLI: the
    ///   worker of `serve` finds the rows at its next poll).
    public init(users: any CospaceUserStore, outbox: any OutboxStore, notify: @escaping @Sendable () -> Void = {}) {
        self.users = users
        self.outbox = outbox
        self.notify = notify
    }

    /// How many devices were queued and how many left out because their app is not in
    /// `apps` (nil: every app); nil when no user has the event's owner id.
    public func publish(_ event: CospaceEvent, within apps: Set<AppID>? = nil) throws -> ScopedFanOut? {
        // The stored ids are lowercase; senders may write a UUID in either case.
        guard let devices = try users.deviceIDs(userID: event.owner.lowercased(), within: apps) else { return nil }
        let queued = try outbox.enqueue(event.outboxMessage, deviceIDs: devices.inScope)
        if queued > 0 { notify() }
        return ScopedFanOut(queued: queued, leftOut: devices.leftOut)
    }
}
