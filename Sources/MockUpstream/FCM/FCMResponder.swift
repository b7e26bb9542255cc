import Foundation
import Synchronization

/// Routes mock-FCM requests: the OAuth token endpoint, `messages:send`, and Google's 404 for
/// anything else; applies injected faults and records every request.
final class FCMResponder: MockResponder {
    let configuration: MockFCMConfiguration
    let accessTokens = AccessTokenStore()
    let oauth: OAuthTokenEndpoint
    let send: FCMSendEndpoint
    /// Faults for `messages:send`, and separately for the token endpoint.
    let sendFaults = FaultPlan()
    let oauthFaults = FaultPlan()
    let log: RequestLog
    /// Token-endpoint requests, counted even when requests are not recorded.
    let tokenEndpointRequests = Atomic<Int>(0)

    init(configuration: MockFCMConfiguration) throws {
        self.configuration = configuration
        oauth = try OAuthTokenEndpoint(
            accounts: configuration.serviceAccounts, tokens: accessTokens, lifetime: configuration.accessTokenLifetime,
            path: configuration.tokenPath)
        send = FCMSendEndpoint(tokens: accessTokens)
        log = RequestLog(configuration)
    }

    func reply(to request: MockHTTPRequest) -> MockReply {
        let now = Date()
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        var answer: EndpointAnswer
        var delay: Duration?
        if path == configuration.tokenPath {
            tokenEndpointRequests.add(1, ordering: .relaxed)
            switch oauthFaults.take(token: nil) {
            case .status(let status, let reason, let retryAfter)?:
                answer = EndpointAnswer(
                    response: EndpointAnswer.json(
                        status, GoogleErrorBody.oauthError(reason, description: "injected by the mock"),
                        extraHeaders: retryAfter.map { [(name: "retry-after", value: String($0))] } ?? []),
                    reason: reason)
            case .resetConnection?:
                log.record(request, at: now, token: nil, outcome: .connectionReset)
                return .resetConnection
            case .goAway?:
                log.record(request, at: now, token: nil, outcome: .goAway)
                return .goAway(debugData: [])
            case .delay(let duration)?:
                delay = duration
                answer = oauth.answer(request, now: now)
            case nil:
                answer = oauth.answer(request, now: now)
            }
        } else if let project = FCMSendEndpoint.project(inPath: path) {
            let token = FCMSendEndpoint.deviceToken(in: request.body)
            switch sendFaults.take(token: token) {
            case .status(let status, let reason, let retryAfter)?:
                answer = EndpointAnswer(
                    response: EndpointAnswer.json(
                        status, Self.injectedError(status: status, code: reason),
                        extraHeaders: retryAfter.map { [(name: "retry-after", value: String($0))] } ?? []),
                    reason: reason, deviceToken: token)
            case .resetConnection?:
                log.record(request, at: now, token: token, outcome: .connectionReset)
                return .resetConnection
            case .goAway?:
                log.record(request, at: now, token: token, outcome: .goAway)
                return .goAway(debugData: [])
            case .delay(let duration)?:
                delay = duration
                answer = send.answer(request, project: project, now: now)
            case nil:
                answer = send.answer(request, project: project, now: now)
            }
        } else {
            answer = EndpointAnswer(
                response: EndpointAnswer.json(
                    404,
                    GoogleErrorBody.apiError(
                        status: 404, message: "The requested URL \(path) was not found on this server.",
                        canonicalStatus: "NOT_FOUND")),
                reason: "NOT_FOUND")
        }
        log.record(
            request, at: now, token: answer.deviceToken, auth: answer.auth,
            outcome: .answered(status: answer.response.status, reason: answer.reason))
        return .respond(answer.response, delay: delay)
    }

    /// An injected status in Google's shape: a known FCM error code gets its canonical status
    /// and FcmError detail; anything else is passed through as the canonical status itself.
    static func injectedError(status: Int, code: String) -> [UInt8] {
        if let known = FCMErrorCode(rawValue: code) {
            return GoogleErrorBody.apiError(
                status: status, message: known.message,
                canonicalStatus: GoogleErrorBody.canonicalStatus(forHTTPStatus: status),
                fcmErrorCode: known.rawValue)
        }
        return GoogleErrorBody.apiError(status: status, message: "injected by the mock", canonicalStatus: code)
    }
}
