import Foundation

/// Queues a publish to interests a step at a time (migration 0013): the publish queues the
/// first step in its own transaction, due at once; the outbox worker each further one in one
/// of its own, claimed for itself as it is queued (migration 0017).
/// A step reads about `budget` subscriptions from the fan-out's cursor on, one interest at a
/// time, so that its transaction stays short whatever the number of subscribers.
enum InterestFanOut {
    /// Where `step` left the fan-out.
    struct Step {
        var fanOut: InterestFanOutTable.Row
        /// The outbox rows it queued.
        var queuedIDs: [Int64]
        var queued: Int { queuedIDs.count }
        /// Every interest is queued: the fan-out is done.
        var finished: Bool { fanOut.interestIndex >= fanOut.interests.count }
    }

    /// Queues the subscriptions of `fanOut` after its cursor, reading about `budget` of them,
    /// due at `now` or claimed under `claim`; the caller stores the cursor it returns (or,
    /// when finished, drops the fan-out).
    static func step(
        _ fanOut: InterestFanOutTable.Row, budget: Int, now: Int64, claim: OutboxLease? = nil,
        in database: some SQLConnection
    ) throws -> Step {
        var fanOut = fanOut
        var budget = max(budget, 1)
        var queuedIDs: [Int64] = []
        while budget > 0, fanOut.interestIndex < fanOut.interests.count {
            let interest = fanOut.interests[fanOut.interestIndex]
            let earlier = String(
                decoding: try JSONEncoder().encode(Array(fanOut.interests[..<fanOut.interestIndex])), as: UTF8.self)
            let end = try BeamsInterestTable.stepEnd(
                interest: interest, after: fanOut.afterClient, limit: budget, in: database)
            let ids = try BeamsInterestTable.enqueueStep(
                payloadID: fanOut.payloadID, interest: interest, after: fanOut.afterClient, through: end,
                appIDsJSON: fanOut.appIDsJSON, earlierInterests: earlier, now: now, claim: claim, in: database)
            queuedIDs += ids
            if let end {
                // A whole budget of subscriptions read: the step ends inside this interest.
                fanOut.afterClient = end
                budget = 0
            } else {
                // The rest of this interest, fewer than the budget: on to the next one. What
                // it read is counted by the rows it queued (and at least one), so that a
                // publish to many small interests is still bounded by their number.
                fanOut.interestIndex += 1
                fanOut.afterClient = ""
                budget -= max(ids.count, 1)
            }
        }
        return Step(fanOut: fanOut, queuedIDs: queuedIDs)
    }
}
