import Logging
import PushCore

/// Sends a request's checked pushes as one concurrent batch and answers each in order: the
/// one place pnm2 turns a `DeliveryResult` into a `code`. The request is parked while its
/// pushes wait on the upstream: no thread waits with it, and the bounded retry waits on a timer.
struct Pnm2Dispatch: Sendable {
    let apps: any AppCatalog
    let directory: any AcrobitsPushDirectory
    let subscriptions: WebPushSubscriptionCheck
    /// The process's deliverer, pruning dead stored devices.
    let deliverer: any Deliverer
    /// Waits before the one in-request retry (injected so tests do not wait).
    let pause: Pnm2Gateway.RetryPause
    /// Whether that retry still fits before nginx gives up on the request.
    let budget: Pnm2RetryBudget

    /// The longest a caller waits for the retry: a PBX script times out; the outbox is the
    /// place for patient retries, not a held-open request.
    static let longestRetryPause = 1.0
    static let defaultRetryPause = 0.2

    /// Checks and addresses the pushes now (what throws, a store that is away, throws here) and
    /// answers with `respond(replies)`: parked while pushes wait on the upstream, at once when
    /// none was sent. `logger`: the request's; its retries and the upstream's refusals are
    /// logged there.
    /// `receivedAt`: the request's arrival (`Request.receivedAt`), now when it has none.
    func send(
        _ entries: [Result<Pnm2Push, Pnm2Reply>], deadToken: Pnm2Reply, receivedAt: UInt64?, logger: Logger,
        respond: @escaping @Sendable ([Pnm2Reply]) -> Response
    ) throws -> Response {
        let receivedAt = receivedAt ?? budget.now()
        var replies = entries.map { entry -> Pnm2Reply? in if case .failure(let reply) = entry { reply } else { nil } }
        var catalog: [AppID: RegisteredApp?] = [:]
        var addressed: [(index: Int, push: Pnm2Push, app: RegisteredApp)] = []
        for (index, entry) in entries.enumerated() {
            guard case .success(let push) = entry else { continue }
            if catalog[push.appID] == nil { catalog[push.appID] = .some(try apps.app(id: push.appID)) }
            guard let app = catalog[push.appID] ?? nil else {
                // Never 404: that tells the PBX to forget a token that may be fine.
                replies[index] = .badObject("AppId \(push.appID) is not registered at this push service")
                continue
            }
            addressed.append((index, push, app))
        }
        let addressing = Pnm2Addressing(directory: directory, subscriptions: subscriptions)
        let targets = try addressing.targets(addressed.map { ($0.push, $0.app) })
        var indices: [Int] = []
        var batch: [Notification] = []
        for (item, target) in zip(addressed, targets) {
            switch target {
            case .success(let target):
                indices.append(item.index)
                batch.append(Pnm2Payload.notification(item.push, app: item.app, target: target))
            case .failure(let reply):
                replies[item.index] = reply
            }
        }
        guard !batch.isEmpty else { return respond(Self.answered(replies)) }
        let checked = replies
        return .parked(
            ParkedResponse(weight: batch.count) { [self, batch, indices] home, answer in
                deliver(batch, deadToken: deadToken, receivedAt: receivedAt, logger: logger, home: home) { delivered in
                    var replies = checked
                    for (index, reply) in zip(indices, delivered) { replies[index] = reply }
                    answer(respond(Self.answered(replies)))
                }
            })
    }

    /// Every entry's reply; one without (which no path leaves) is a service error, never a gap.
    private static func answered(_ replies: [Pnm2Reply?]) -> [Pnm2Reply] {
        replies.map { $0 ?? .serviceError("no answer") }
    }

    /// One batch, then one bounded retry of what the upstream asked to retry later, if it fits
    /// in the budget; `completion` runs on `home`.
    private func deliver(
        _ notifications: [Notification], deadToken: Pnm2Reply, receivedAt: UInt64, logger: Logger,
        home: any HomeThread, completion: @escaping @Sendable ([Pnm2Reply]) -> Void
    ) {
        deliverer.deliver(notifications, logger: logger, home: home) { [self] first in
            let retried = first.indices.filter { if case .retryLater = first[$0] { return true } else { return false } }
            guard !retried.isEmpty else {
                return completion(replies(notifications, first, deadToken: deadToken, logger: logger, retried: false))
            }
            let wait = retried.map { index -> Double in
                guard case .retryLater(_, let after?) = first[index] else { return Self.defaultRetryPause }
                return Double(after)
            }.max() ?? Self.defaultRetryPause
            let pauseSeconds = min(max(wait, 0), Self.longestRetryPause)
            guard budget.allowsRetry(receivedAt: receivedAt, pauseSeconds: pauseSeconds) else {
                logger.info(
                    "not retrying \(retried.count) of \(notifications.count) pushes: a retry could not be answered before the front server's time-out: \(Self.reasons(retried.map { first[$0] }))")
                return completion(replies(notifications, first, deadToken: deadToken, logger: logger, retried: false))
            }
            logger.info(
                "retrying \(retried.count) of \(notifications.count) pushes in \(pauseSeconds) s: \(Self.reasons(retried.map { first[$0] }))")
            pause(pauseSeconds, home) { [self] in
                deliverer.deliver(retried.map { notifications[$0] }, logger: logger, home: home) { [self] second in
                    var results = first
                    for (index, result) in zip(retried, second) { results[index] = result }
                    completion(replies(notifications, results, deadToken: deadToken, logger: logger, retried: true))
                }
            }
        }
    }

    /// Logs what did not go out and turns each result into its reply. `retried`: whether the
    /// pushes still to retry later had their retry.
    private func replies(
        _ notifications: [Notification], _ results: [DeliveryResult], deadToken: Pnm2Reply, logger: Logger,
        retried: Bool
    ) -> [Pnm2Reply] {
        for (notification, result) in zip(notifications, results) {
            switch result {
            case .rejected(let status, let reason):
                logger.info("push to \(notification.appID) (\(notification.token)) refused by the upstream: \(status) \(reason)")
            case .retryLater(let reason, _):
                logger.info(
                    "push to \(notification.appID) (\(notification.token)) not sent \(retried ? "after its retry" : "(no time left to retry)"): \(reason)")
            case .delivered, .deadToken:
                break
            }
        }
        return results.map { reply(for: $0, deadToken: deadToken) }
    }

    /// The distinct reasons of the results to retry, for one log line.
    private static func reasons(_ results: [DeliveryResult]) -> String {
        var seen: [String] = []
        for case .retryLater(let reason, _) in results where !seen.contains(reason) { seen.append(reason) }
        return seen.joined(separator: "; ")
    }

    private func reply(for result: DeliveryResult, deadToken: Pnm2Reply) -> Pnm2Reply {
        switch result {
        case .delivered:
            return .sent
        case .deadToken:
            return deadToken
        case .rejected(413, let reason):
            // The caller's Message (or other fields) made the payload too large for the
            // upstream: a bad object, which the caller can fix, not a fault of ours.
            return .badObject("the push is too large: \(reason)")
        case .rejected(let status, let reason):
            // Credentials, topic or payload refused: the operator's configuration (or ours),
            // nothing the caller can fix by resending.
            return .serviceError("upstream refused the push (\(status) \(reason))")
        case .retryLater(let reason, _):
            return .serviceError("upstream unavailable (\(reason))")
        }
    }
}
