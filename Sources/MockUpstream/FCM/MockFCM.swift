import Foundation

/// A local stand-in for FCM HTTP v1 and Google's OAuth token endpoint: HTTPS (HTTP/2 or
/// HTTP/1.1 by ALPN) on 127.0.0.1, issuing access tokens for registered service accounts and
/// answering `messages:send` with Google's statuses and error JSON. Started by `init`; call
/// `shutdown()`.
///
///     let fcm = try MockFCM(configuration: .init(serviceAccounts: [.fixture]))
///     defer { fcm.shutdown() }
///     let json = try fcm.serviceAccountJSON()   // token_uri points at the mock
///     // PUSHGATE_FCM_URL = fcm.baseURL, trusting MockFixtures.caFile
public final class MockFCM: MockService {
    public let configuration: MockFCMConfiguration
    private let responder: FCMResponder
    private let server: MockServer

    public init(configuration: MockFCMConfiguration) throws {
        self.configuration = configuration
        responder = try FCMResponder(configuration: configuration)
        server = try MockServer(serving: configuration, protocols: ["h2", "http/1.1"], responder: responder)
    }

    public var port: Int { server.port }

    /// The service account `token_uri` that reaches this mock.
    public var tokenURI: String { baseURL + configuration.tokenPath }

    public func shutdown() {
        server.shutdown()
    }

    // MARK: Recording

    /// Every request judged (token endpoint and sends), with counters.
    public var log: RequestLog { responder.log }

    /// The recorded `messages:send` requests only.
    public var sendRequests: [RecordedRequest] {
        requests.filter { FCMSendEndpoint.project(inPath: $0.path) != nil }
    }

    /// The recorded token-endpoint requests only.
    public var tokenRequests: [RecordedRequest] {
        requests.filter { $0.path == configuration.tokenPath }
    }

    public var connectionCount: Int { server.connectionCount }

    /// Requests to the token endpoint so far (kept even when requests are not recorded).
    public var tokenRequestCount: Int { responder.tokenEndpointRequests.load(ordering: .relaxed) }

    /// Access tokens issued so far.
    public var accessTokensIssued: Int { responder.accessTokens.issuedCount }

    // MARK: Scripting

    /// What to answer for registration token `token` once a send is otherwise valid; nil makes
    /// it live again.
    public func setOutcome(_ outcome: FCMTokenOutcome?, forToken token: String) {
        responder.send.setOutcome(outcome, forToken: token)
    }

    /// Applies `fault` to the next `count` sends. For `.status`, `reason` is an FCM error code.
    public func inject(_ fault: MockFault, forNext count: Int = 1) {
        responder.sendFaults.inject(fault, forNext: count)
    }

    /// Applies `fault` to sends to `token`: the next `times`, or all while nil.
    public func inject(_ fault: MockFault, forToken token: String, times: Int? = nil) {
        responder.sendFaults.inject(fault, forToken: token, times: times)
    }

    /// Applies `fault` to the next `count` token-endpoint requests. For `.status`, `reason` is
    /// the OAuth `error` (e.g. `internal_failure`).
    public func injectTokenEndpointFault(_ fault: MockFault, forNext count: Int = 1) {
        responder.oauthFaults.inject(fault, forNext: count)
    }

    /// Makes every access token issued so far expired: the next send with one gets 401.
    public func expireAccessTokens() {
        responder.accessTokens.expireAll()
    }

    public func clearFaults() {
        responder.sendFaults.clear()
        responder.oauthFaults.clear()
    }

    /// Drops faults, token outcomes, issued access tokens and the log.
    public func reset() {
        clearFaults()
        responder.send.clearOutcomes()
        responder.accessTokens.reset()
        responder.tokenEndpointRequests.store(0, ordering: .relaxed)
        responder.log.clear()
    }
}
