/// A push to fan out through the durable outbox: what every device of a publish or event
/// receives, the half (or both) for each platform it can reach.
public struct OutboxMessage: Sendable, Equatable {
    /// Who published it ("beams:publish", "bridge:topic", "cospace:event"): shown to operators.
    public var source: String
    public var apns: APNsMessage?
    public var fcm: FCMMessage?
    public var web: WebPushMessage?

    public init(source: String, apns: APNsMessage? = nil, fcm: FCMMessage? = nil, web: WebPushMessage? = nil) {
        self.source = source
        self.apns = apns
        self.fcm = fcm
        self.web = web
    }
}

/// One claimed outbox row, ready to hand to a `Deliverer`.
public struct OutboxDelivery: Sendable, Equatable {
    /// The outbox row.
    public var id: Int64
    /// The publish it belongs to (one payload row per publish): completing the last row of
    /// a publish deletes its payload.
    public var payloadID: Int64
    /// Deliveries started for this row, this one included (counted when claimed, so that a
    /// row whose delivery crashes the process still reaches the limit).
    public var attempts: Int
    /// Always carries the device id and the device's token, sandbox and APNs topic.
    public var notification: Notification
    public var source: String

    public init(id: Int64, payloadID: Int64, attempts: Int, notification: Notification, source: String) {
        self.id = id
        self.payloadID = payloadID
        self.attempts = attempts
        self.notification = notification
        self.source = source
    }
}

/// What the outbox worker decided for one claimed row.
public enum OutboxOutcome: Sendable, Equatable {
    /// Accepted upstream: the row is deleted. `id` is the `apns-id` or FCM message name.
    case delivered(id: String?)
    /// Try again at `at` (unix ms); the claim is released. `error` is kept for operators.
    case retry(at: Int64, error: String)
    /// Given up (refused upstream, or retries exhausted): kept as a dead letter.
    case dead(error: String)
    /// The token is dead: the store prunes the device (and so this row and every other push
    /// queued for it) in the same transaction, unless it was re-registered after `since`
    /// (APNs' 410 `timestamp`, ms); the row is finished either way.
    case deadToken(reason: String, since: Int64?)
}

/// An outbox row given up on, for operators.
public struct OutboxDeadLetter: Sendable, Equatable {
    public var id: Int64
    public var source: String
    public var deviceID: Int64
    public var appID: String
    /// Shortened: never a whole token.
    public var token: String
    public var attempts: Int
    public var lastError: String?
    /// Unix ms.
    public var createdAt: Int64

    public init(
        id: Int64, source: String, deviceID: Int64, appID: String, token: String, attempts: Int, lastError: String?,
        createdAt: Int64
    ) {
        self.id = id
        self.source = source
        self.deviceID = deviceID
        self.appID = appID
        self.token = token
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
    }
}

/// One recent outcome of the outbox, for operators.
public struct DeliveryLogEntry: Sendable, Equatable {
    /// What `delivery_log.outcome` holds.
    public enum Kind: String, Sendable, CaseIterable {
        case delivered, retry, dead
        /// Dead token: the device was pruned.
        case pruned
        /// Dead token, but the device was re-registered after the token died: kept.
        case kept
    }

    /// Unix ms.
    public var at: Int64
    public var appID: String
    /// Shortened: never a whole token.
    public var token: String
    public var kind: Kind
    public var detail: String?
    public var source: String?

    public init(at: Int64, appID: String, token: String, kind: Kind, detail: String?, source: String?) {
        self.at = at
        self.appID = appID
        self.token = token
        self.kind = kind
        self.detail = detail
        self.source = source
    }
}

/// Rows one node holds leased, for operators: which node is delivering what.
public struct OutboxClaim: Sendable, Equatable {
    /// The node that claimed them (`PUSHGATE_NODE_ID`); nil for rows claimed before nodes
    /// were recorded.
    public var node: String?
    public var rows: Int
    /// When the last of their leases ends (unix ms); in the past, the node stopped
    /// completing them (it died) and any node may claim them again.
    public var leasedUntil: Int64

    public init(node: String?, rows: Int, leasedUntil: Int64) {
        self.node = node
        self.rows = rows
        self.leasedUntil = leasedUntil
    }
}

/// The durable outbox: publishers enqueue a fan-out in one transaction, one worker per
/// process (node) claims due rows, delivers them and completes them. Times are unix
/// milliseconds. A claim is a lease recorded with the claiming node: rows of a worker that
/// died come back when it runs out, or at once when the same node starts again.
public protocol OutboxStore: Sendable {
    /// In one transaction: stores `message` once and one row per device, due now. Devices
    /// that no longer exist are skipped; returns the rows enqueued (0 stores nothing).
    func enqueue(_ message: OutboxMessage, deviceIDs: [Int64]) throws -> Int
    /// In one transaction: up to `limit` pending rows due at `now`, oldest first, each leased
    /// to `node` until `now + lease` and its attempt counted. Rows another node holds are
    /// skipped, not waited for; rows whose lease ran out are anyone's.
    func claimDue(limit: Int, now: Int64, lease: Int64, node: String) throws -> [OutboxDelivery]
    /// In one transaction: acts on each claimed row's outcome and logs it. A row no longer
    /// there (its device was deleted meanwhile) is skipped. Takes the claimed deliveries back,
    /// not only their ids: the log and the tidying need their device and publish, which the
    /// store then need not read again for every row.
    func complete(_ outcomes: [(delivery: OutboxDelivery, outcome: OutboxOutcome)], now: Int64) throws
    /// In one transaction: queues the next step of the oldest fan-out still being queued
    /// (`BeamsStore.publishToInterests`), reading up to `limit` subscriptions, and moves its
    /// cursor. The rows it queues are claimed for `node` as they are queued, as `claimDue`
    /// would claim them (a row inserted and then claimed would be written twice), and come
    /// back for delivery. Fan-outs another node is stepping are skipped, not waited for.
    func continueFanOuts(limit: Int, now: Int64, lease: Int64, node: String) throws -> FanOutProgress
    /// Publishes whose fan-out is still being queued (their rest is not pending yet).
    func fanOutsInProgress() throws -> Int
    /// When the next pending row is due (maybe in the past), nil when none is pending.
    func nextDueAt() throws -> Int64?
    /// Makes the claimed rows of `node` due now, or every node's claims when `node` is nil:
    /// for a worker starting where its predecessor (the same node) died holding claims, or in
    /// the only process that delivers from this database. Returns how many.
    func releaseClaims(heldBy node: String?) throws -> Int
    /// Rows in flight, per node holding them.
    func claims() throws -> [OutboxClaim]
    /// Pending rows, in flight or not.
    func pendingCount() throws -> Int
    /// The oldest dead letters first.
    func deadLetters(limit: Int) throws -> [OutboxDeadLetter]
    /// Makes every dead letter pending again with a fresh count of attempts; returns how many.
    func retryDeadLetters() throws -> Int
    /// The newest entries first.
    func deliveryLog(limit: Int) throws -> [DeliveryLogEntry]
    /// Deletes all but the newest `keeping` log entries; returns how many went.
    func trimDeliveryLog(keeping: Int) throws -> Int
    /// Deletes payloads no row refers to any more (their devices were deleted); returns how many.
    func deleteUnusedPayloads() throws -> Int
}

extension OutboxStore {
    /// A claim by a caller that is the only one delivering (a one-off drain, a test).
    public func claimDue(limit: Int, now: Int64, lease: Int64) throws -> [OutboxDelivery] {
        try claimDue(limit: limit, now: now, lease: lease, node: "local")
    }
}
