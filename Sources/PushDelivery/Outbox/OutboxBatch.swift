import Foundation
import Logging
import PushCore

/// One claimed batch on its way through the deliverer: the rows to send, those given up
/// unsent, and the deliverer's answers once they come. Delivered on the caller's thread or
/// handed to the deliverer without waiting, so that the worker's store work overlaps the
/// upstream round trips.
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
        store(sendable.isEmpty ? [] : deliverer.deliver(sendable.map(\.notification)))
    }

    /// Hands the batch to the deliverer and returns once it is handed on; `outcomes` waits
    /// for the answers. No thread waits with them: the deliverer's last answer only stores
    /// the results, on whichever thread gives it (the engine's). A deliverer that can only
    /// block sends the batch here, on the caller's thread. (A thread of its own per batch,
    /// as before, paid for a fresh stack's page faults each time.)
    func deliverInBackground(with deliverer: Deliverer, logger: Logger) {
        guard !sendable.isEmpty else { return store([]) }
        deliverer.deliver(sendable.map(\.notification), logger: logger, home: AnsweringThread()) { [self] in
            store($0)
        }
    }

    private func store(_ answers: [DeliveryResult]) {
        condition.lock()
        results = answers
        condition.broadcast()
        condition.unlock()
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

/// Runs a batch's completion on the thread that gave the last answer: it only stores the
/// results and wakes the worker, which is safe on an engine thread.
private struct AnsweringThread: HomeThread {
    func resume(_ work: @escaping @Sendable () -> Void) { work() }
}
