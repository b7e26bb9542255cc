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
        log = RequestLog(keepsRequests: configuration.recordRequests)
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
            record(request, token: id, outcome: .answered(status: status, reason: reason), now: now)
            return .respond(response, delay: nil)
        case .resetConnection?:
            record(request, token: id, outcome: .connectionReset, now: now)
            return .resetConnection
        case .goAway?:
            record(request, token: id, outcome: .goAway, now: now)
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
        record(request, token: token, outcome: outcome, now: now, subject: try? verdict.get().subject)
        return .respond(response, delay: delay)
    }

    private func record(
        _ request: MockHTTPRequest, token: String?, outcome: RecordedOutcome, now: Date, subject: String? = nil
    ) {
        log.record(outcome: outcome) { sequence in
            RecordedRequest(
                sequence: sequence, receivedAt: now, connectionID: request.connection.id,
                httpVersion: request.httpVersion, method: request.method, path: request.path,
                headers: request.headers, body: configuration.recordBodies ? request.body : nil, deviceToken: token,
                auth: subject.map { .vapid(subject: $0) } ?? .none, outcome: outcome)
        }
    }
}
