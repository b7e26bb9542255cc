import Logging
import PushCore

/// Sends a request's checked pushes as one concurrent batch and answers each in order: the
/// one place pnm2 turns a `DeliveryResult` into a `code`.
struct Pnm2Dispatch: Sendable {
    let apps: any AppCatalog
    let directory: any AcrobitsPushDirectory
    /// The process's deliverer wrapped to prune dead stored devices.
    let deliverer: any Deliverer
    /// Sleeps before the one in-request retry (injected so tests do not wait).
    let pause: @Sendable (Double) -> Void

    /// The longest a caller waits for the retry: a PBX script times out; the outbox is the
    /// place for patient retries, not a held-open request.
    static let longestRetryPause = 1.0
    static let defaultRetryPause = 0.2

    /// `logger`: the request's; its retries and the upstream's refusals are logged there.
    func send(_ entries: [Result<Pnm2Push, Pnm2Reply>], deadToken: Pnm2Reply, logger: Logger) throws -> [Pnm2Reply] {
        var replies = entries.map { entry -> Pnm2Reply? in
            if case .failure(let reply) = entry { return reply }
            return nil
        }
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
        let targets = try Pnm2Addressing(directory: directory).targets(addressed.map { ($0.push, $0.app) })
        var batch: [(index: Int, notification: Notification)] = []
        for (item, target) in zip(addressed, targets) {
            switch target {
            case .success(let target):
                batch.append((item.index, Pnm2Payload.notification(item.push, app: item.app, target: target)))
            case .failure(let reply):
                replies[item.index] = reply
            }
        }
        for (index, reply) in deliver(batch.map(\.notification), deadToken: deadToken, logger: logger).enumerated() {
            replies[batch[index].index] = reply
        }
        return replies.map { $0 ?? .serviceError("no answer") }
    }

    /// One batch, then one bounded retry of what the upstream asked to retry later.
    private func deliver(_ notifications: [Notification], deadToken: Pnm2Reply, logger: Logger) -> [Pnm2Reply] {
        guard !notifications.isEmpty else { return [] }
        var results = deliverer.deliver(notifications, logger: logger)
        let retried = results.indices.filter { if case .retryLater = results[$0] { return true } else { return false } }
        if !retried.isEmpty {
            let wait = retried.map { index -> Double in
                guard case .retryLater(_, let after?) = results[index] else { return Self.defaultRetryPause }
                return Double(after)
            }.max() ?? Self.defaultRetryPause
            let pauseSeconds = min(max(wait, 0), Self.longestRetryPause)
            logger.info(
                "retrying \(retried.count) of \(notifications.count) pushes in \(pauseSeconds) s: \(Self.reasons(retried.map { results[$0] }))")
            pause(pauseSeconds)
            for (index, result) in zip(retried, deliverer.deliver(retried.map { notifications[$0] }, logger: logger)) {
                results[index] = result
            }
        }
        for (notification, result) in zip(notifications, results) {
            switch result {
            case .rejected(let status, let reason):
                logger.info("push to \(notification.appID) (\(notification.token)) refused by the upstream: \(status) \(reason)")
            case .retryLater(let reason, _):
                logger.info("push to \(notification.appID) (\(notification.token)) not sent after its retry: \(reason)")
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
