import Foundation

/// Routes mock push-service requests: `POST /push/<id>` for a subscription the mock created,
/// injected faults first, then gone subscriptions, then `WebPushRequestCheck`. Records every
/// request and every decrypted message.
final class WebPushResponder: MockResponder {
    static let pushPath = "/push/"

    let configuration: MockWebPushConfiguration
    let subscriptions = WebPushSubscriptionBook()
    let faults = FaultPlan()
    let log: RequestLog
    private let ids = UUIDSource()
    private let check: WebPushRequestCheck

    init(configuration: MockWebPushConfiguration) {
        self.configuration = configuration
        check = WebPushRequestCheck(configuration: configuration)
        log = RequestLog(configuration)
    }

    func reply(to request: MockHTTPRequest) -> MockReply {
        let now = Date()
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        guard path.hasPrefix(Self.pushPath) else {
            return answer(request, token: nil, .failure(.notFound("No such endpoint: \(path)")), now: now)
        }
        let id = String(path.dropFirst(Self.pushPath.count))
        guard let entry = subscriptions.entry(id) else {
            return answer(request, token: id, .failure(.notFound("No such subscription")), now: now)
        }
        guard request.method == "POST" else { return answer(request, token: id, .failure(.methodNotAllowed), now: now) }
        var delay: Duration?
        switch faults.take(token: id) {
        case .status(let status, let reason, let retryAfter)?:
            let response = MockHTTPResponse(
                status: status,
                headers: [("content-type", "application/json")] + (retryAfter.map { [("retry-after", String($0))] } ?? []),
                body: AutopushError(status: status, errno: 999, message: reason).body)
            log.record(request, at: now, token: id, outcome: .answered(status: status, reason: reason))
            return .respond(response, delay: nil)
        case .resetConnection?:
            log.record(request, at: now, token: id, outcome: .connectionReset)
            return .resetConnection
        case .goAway?:
            log.record(request, at: now, token: id, outcome: .goAway)
            return .goAway(debugData: [])
        case .delay(let duration)?:
            delay = duration
        case nil:
            break
        }
        if entry.isGone { return answer(request, token: id, .failure(.gone), now: now) }
        let verdict = check.judge(request, subscription: entry, now: now)
        if case .success(let message) = verdict {
            subscriptions.deliver(message)
            configuration.onMessage?(message)
        }
        return answer(request, token: id, verdict, now: now, delay: delay)
    }

    private func answer(
        _ request: MockHTTPRequest, token: String?, _ verdict: Result<MockWebPushMessage, AutopushError>, now: Date,
        delay: Duration? = nil
    ) -> MockReply {
        let response: MockHTTPResponse
        let outcome: RecordedOutcome
        switch verdict {
        case .success(let message):
            response = MockHTTPResponse(
                status: 201, headers: [("location", "https://\(request.authority ?? configuration.host)/m/\(ids.next())"), ("ttl", String(message.ttl))])
            outcome = .answered(status: 201, reason: nil)
        case .failure(let error):
            response = MockHTTPResponse(
                status: error.status, headers: [("content-type", "application/json")], body: error.body)
            outcome = .answered(status: error.status, reason: error.message)
        }
        let auth = (try? verdict.get().subject).map { RecordedAuth.vapid(subject: $0) } ?? .none
        log.record(request, at: now, token: token, auth: auth, outcome: outcome)
        return .respond(response, delay: delay)
    }
}
