import Foundation
import Logging
import PushCore

/// One claimed batch on its way through the deliverer: the rows to send, those given up
/// unsent, and the deliverer's answers once they come. Delivered on the caller's thread or
/// on one of its own, so that the worker's store work overlaps the upstream round trips.
/// `@unchecked Sendable`: `results` is only touched with `condition` locked; the rest is immutable.
final class OutboxBatch: @unchecked Sendable {
    let claimed: [OutboxDelivery]
    private let sendable: [OutboxDelivery]
    /// Rows claimed more often than allowed were never answered: their deliveries died with
    /// the process (a crash loop). Sending them again could bring the next crash.
    private let exhausted: [OutboxDelivery]
    private let condition = NSCondition()
    private var results: [DeliveryResult]?

    init(_ claimed: [OutboxDelivery], maxAttempts: Int) {
        self.claimed = claimed
        var sendable: [OutboxDelivery] = []
        var exhausted: [OutboxDelivery] = []
        sendable.reserveCapacity(claimed.count)
        for delivery in claimed {
            if delivery.attempts > maxAttempts { exhausted.append(delivery) } else { sendable.append(delivery) }
        }
        self.sendable = sendable
        self.exhausted = exhausted
    }

    /// Sends the batch on the calling thread; returns when every push is answered.
    func deliver(with deliverer: Deliverer) {
        let answers = sendable.isEmpty ? [] : deliverer.deliver(sendable.map(\.notification))
        condition.lock()
        results = answers
        condition.broadcast()
        condition.unlock()
    }

    /// Sends the batch on a thread of its own and returns at once; `outcomes` waits for it.
    func deliverInBackground(with deliverer: Deliverer) {
        let thread = Thread { [self] in deliver(with: deliverer) }
        thread.name = "pushgate-outbox-delivery"
        thread.start()
    }

    /// Waits for the deliverer, then what becomes of each claimed row.
    func outcomes(policy: RetryPolicy, clock: () -> Int64, logger: Logger)
        -> [(delivery: OutboxDelivery, outcome: OutboxOutcome)]
    {
        condition.lock()
        while results == nil { condition.wait() }
        let answers = results ?? []
        condition.unlock()

        let now = clock()
        var outcomes: [(delivery: OutboxDelivery, outcome: OutboxOutcome)] = []
        outcomes.reserveCapacity(claimed.count)
        for delivery in exhausted {
            outcomes.append((delivery, .dead(error: "gave up: \(delivery.attempts - 1) attempts got no answer")))
        }
        if answers.count != sendable.count {
            logger.error(
                "deliverer answered a batch with the wrong number of results",
                metadata: ["pushes": "\(sendable.count)", "results": "\(answers.count)"])
        }
        for (index, delivery) in sendable.enumerated() {
            // A deliverer breaking its contract must not lose pushes: retry what it skipped.
            let result =
                index < answers.count
                ? answers[index] : .retryLater(reason: "the deliverer gave no result", afterSeconds: nil)
            outcomes.append((delivery, OutboxOutcome(result, attempts: delivery.attempts, policy: policy, now: now)))
        }
        return outcomes
    }
}
