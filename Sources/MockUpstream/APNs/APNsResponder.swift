import Foundation
import Synchronization

/// Judges one provider-API request as APNs would, in Apple's order: method and path, injected
/// faults, token syntax, headers, authentication, topic, payload, then what the script says
/// about the device token.
/// (developer.apple.com: "Sending notification requests to APNs" and "Handling notification
/// responses from APNs".)
final class APNsResponder: MockResponder {
    let configuration: MockAPNsConfiguration
    let verifier: ProviderTokenVerifier
    let faults = FaultPlan()
    let log: RequestLog
    private let ids = UUIDSource()
    private let outcomes = Mutex<[String: APNsTokenOutcome]>([:])

    init(configuration: MockAPNsConfiguration) throws {
        self.configuration = configuration
        self.verifier = try ProviderTokenVerifier(
            keys: configuration.providerKeys, updateInterval: configuration.providerTokenUpdateInterval,
            lifetime: configuration.providerTokenLifetime)
        self.log = RequestLog(configuration)
    }

    func setOutcome(_ outcome: APNsTokenOutcome?, forToken token: String) {
        outcomes.withLock { $0[token.lowercased()] = outcome }
    }

    func clearOutcomes() {
        outcomes.withLock { $0.removeAll() }
    }

    func reply(to request: MockHTTPRequest) -> MockReply {
        let now = Date()
        var token: String?
        var auth = RecordedAuth.none
        var delay: Duration?
        let verdict: Verdict
        switch APNsHeaderRules.deviceToken(inPath: request.path) {
        case .refused(let reason):
            verdict = request.method != "POST" ? .refused(.methodNotAllowed) : .refused(reason)
        case .token(let pathToken):
            token = pathToken
            switch faults.take(token: pathToken) {
            case .status(let status, let reason, let retryAfter)?:
                verdict = .injected(status: status, reason: reason, retryAfter: retryAfter)
            case .resetConnection?:
                log.record(request, at: now, token: token, outcome: .connectionReset)
                return .resetConnection
            case .goAway?:
                // Apple may put the error JSON in a GOAWAY's data ("Handling notification
                // responses from APNs").
                log.record(request, at: now, token: token, outcome: .goAway)
                return .goAway(debugData: Self.errorBody(reason: APNsReason.shutdown.rawValue))
            case .delay(let duration)?:
                delay = duration
                verdict = judge(request, token: pathToken, auth: &auth, now: now)
            case nil:
                verdict = judge(request, token: pathToken, auth: &auth, now: now)
            }
        }
        let response = makeResponse(verdict, request: request)
        log.record(
            request, at: now, token: token, auth: auth,
            outcome: .answered(status: response.status, reason: verdict.reason))
        return .respond(response, delay: delay)
    }

    private enum Verdict {
        case accepted
        case refused(APNsReason)
        case unregistered(since: Int64)
        case injected(status: Int, reason: String, retryAfter: Int?)

        var reason: String? {
            switch self {
            case .accepted: return nil
            case .refused(let reason): return reason.rawValue
            case .unregistered: return APNsReason.unregistered.rawValue
            case .injected(_, let reason, _): return reason
            }
        }
    }

    private func judge(_ request: MockHTTPRequest, token: String, auth: inout RecordedAuth, now: Date) -> Verdict {
        if request.method != "POST" { return .refused(.methodNotAllowed) }
        guard APNsHeaderRules.isHexToken(token) else { return .refused(.badDeviceToken) }
        let headers = request.headers
        if let problem = APNsHeaderRules.headerProblem(headers) { return .refused(problem) }

        let usesCertificate: Bool
        if let authorization = headers["authorization"] {
            guard let jwt = Self.bearerToken(authorization) else {
                auth = .refused(detail: "authorization is not \"bearer <JWT>\"")
                return .refused(.invalidProviderToken)
            }
            switch verifier.verify(jwt, now: now) {
            case .accepted(let keyID):
                auth = .providerToken(keyID: keyID)
            case .refused(let reason, let detail):
                auth = .refused(detail: detail)
                return .refused(reason)
            }
            usesCertificate = false
        } else if request.connection.hasVerifiedClientCertificate {
            auth = .certificate
            usesCertificate = true
        } else {
            return .refused(.missingProviderToken)
        }

        let topic: String
        if let given = headers["apns-topic"] {
            topic = given
        } else if usesCertificate, let certificateTopic = configuration.certificateTopics.first {
            topic = certificateTopic
        } else {
            return .refused(.missingTopic)
        }
        if let problem = topicProblem(topic, usesCertificate: usesCertificate) { return .refused(problem) }
        if let problem = APNsHeaderRules.pushTypeProblem(pushType: headers["apns-push-type"], topic: topic) {
            return .refused(problem)
        }

        if let problem = APNsHeaderRules.payloadProblem(
            request.body, truncated: request.bodyTruncated, pushType: headers["apns-push-type"],
            validatesJSON: configuration.validatesPayloadJSON)
        {
            return .refused(problem)
        }

        switch outcomes.withLock({ $0.isEmpty ? nil : $0[token.lowercased()] }) {
        case nil: return .accepted
        case .unregistered(let since)?: return .unregistered(since: since)
        case .expired?: return .refused(.expiredToken)
        case .bad?: return .refused(.badDeviceToken)
        case .onlyIn(let environment)?:
            return environment == configuration.environment ? .accepted : .refused(.badDeviceToken)
        case .onlyForTopic(let tokenTopic)?:
            return tokenTopic == topic ? .accepted : .refused(.deviceTokenNotForTopic)
        }
    }

    private func topicProblem(_ topic: String, usesCertificate: Bool) -> APNsReason? {
        if topic.isEmpty { return .badTopic }
        if usesCertificate {
            let covered = configuration.certificateTopics.contains { topic == $0 || topic.hasPrefix($0 + ".") }
            return covered ? nil : .topicDisallowed
        }
        if let allowed = configuration.allowedTopics, !allowed.contains(topic) { return .topicDisallowed }
        return nil
    }

    private func makeResponse(_ verdict: Verdict, request: MockHTTPRequest) -> MockHTTPResponse {
        // Every answer carries apns-id: the request's, or a new UUID (Apple: "Handling
        // notification responses from APNs", header keys).
        var headers = [(name: "apns-id", value: request.headers["apns-id"] ?? ids.next())]
        switch verdict {
        case .accepted:
            if configuration.environment == .sandbox {
                // apns-unique-id: "only available in the Development environment".
                headers.append((name: "apns-unique-id", value: ids.next()))
            }
            return MockHTTPResponse(status: 200, headers: headers)
        case .refused(let reason):
            headers.append((name: "content-type", value: "application/json"))
            return MockHTTPResponse(
                status: reason.status, headers: headers, body: Self.errorBody(reason: reason.rawValue))
        case .unregistered(let since):
            headers.append((name: "content-type", value: "application/json"))
            return MockHTTPResponse(
                status: 410, headers: headers,
                body: Self.errorBody(reason: APNsReason.unregistered.rawValue, timestamp: since))
        case .injected(let status, let reason, let retryAfter):
            headers.append((name: "content-type", value: "application/json"))
            if let retryAfter { headers.append((name: "retry-after", value: String(retryAfter))) }
            return MockHTTPResponse(status: status, headers: headers, body: Self.errorBody(reason: reason))
        }
    }

    /// `{"reason":"…"}`, plus `"timestamp"` (ms) for a 410. Written by hand: reasons are fixed
    /// ASCII words, and this runs on the hot path.
    static func errorBody(reason: String, timestamp: Int64? = nil) -> [UInt8] {
        let escaped = reason.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        if let timestamp { return Array("{\"reason\":\"\(escaped)\",\"timestamp\":\(timestamp)}".utf8) }
        return Array("{\"reason\":\"\(escaped)\"}".utf8)
    }

    /// The JWT of `bearer <JWT>` (the scheme in any case, as HTTP auth schemes are). Works on
    /// UTF-8 bytes: Foundation's trimming costs more than the rest of a request's checks.
    static func bearerToken(_ authorization: String) -> String? {
        let bytes = authorization.utf8
        guard bytes.count > 7 else { return nil }
        let scheme = bytes.prefix(7).map { $0 | 0x20 }  // ASCII lower-case; the space stays a space
        guard scheme.elementsEqual("bearer ".utf8) else { return nil }
        let space = UInt8(ascii: " ")
        guard let first = bytes.dropFirst(7).firstIndex(where: { $0 != space }),
            let last = bytes.lastIndex(where: { $0 != space })
        else { return nil }
        return String(authorization[first...last])
    }
}
