import Logging
import PushCore
import PushCrypto

/// Delivers pushes of FCM apps (`fcm` and `gcm` tokens alike) through FCM HTTP v1 with an
/// OAuth access token of the app's service account, and turns Google's reply into a
/// `DeliveryResult`, refreshing the access token once when FCM refuses it.
public final class FCMClient: PlatformDeliverer {
    public var platform: Platform { .fcm }

    private let transport: HTTP2Transport
    private let meter: UpstreamMeter
    private let baseURL: String
    private let accessTokens: AccessTokenCache
    private let credentials: CredentialCache
    private let clock: UnixClock
    private let logger: Logger

    /// `baseURL` is `PUSHGATE_FCM_URL`.
    public convenience init(
        transport: HTTP2Transport, baseURL: String = "https://fcm.googleapis.com", accessTokens: AccessTokenCache,
        clock: UnixClock = .system, logger: Logger
    ) {
        self.init(
            transport: transport, baseURL: baseURL, accessTokens: accessTokens, credentials: CredentialCache(),
            metrics: .off, clock: clock, logger: logger)
    }

    init(
        transport: HTTP2Transport, baseURL: String, accessTokens: AccessTokenCache, credentials: CredentialCache,
        metrics: DeliveryMetrics, clock: UnixClock, logger: Logger
    ) {
        self.transport = transport
        meter = UpstreamMeter(provider: .fcm, metrics: metrics)
        self.baseURL = baseURL
        self.accessTokens = accessTokens
        self.credentials = credentials
        self.clock = clock
        self.logger = logger
    }

    /// One push, ready but for its access token.
    private struct Prepared: Sendable {
        var app: RegisteredApp
        var account: ServiceAccount
        var url: String
        var body: [UInt8]
        var refreshedAccessToken = false
    }

    public func send(
        _ notification: PushCore.Notification, app: RegisteredApp,
        completion: @escaping @Sendable (DeliveryResult) -> Void
    ) {
        guard let message = notification.fcm else {
            return completion(.rejected(status: 400, reason: "MissingPayload: the push has no FCM message"))
        }
        guard let token = notification.token.fcmText else {
            return completion(.rejected(status: 400, reason: "INVALID_ARGUMENT: the token is not an FCM registration token"))
        }
        let account: ServiceAccount
        let projectID: String
        switch credentials.fcmAccount(for: app) {
        case .success(let value): (account, projectID) = value
        case .failure(let error):
            logger.warning("FCM credentials unusable", metadata: ["app": "\(error.app)", "error": "\(error.reason)"])
            return completion(.rejected(status: 500, reason: error.description))
        }
        // The body does not depend on the access token: build it here, not on the transport's thread.
        let prepared = Prepared(
            app: app, account: account, url: FCMRequest.url(baseURL: baseURL, projectID: projectID),
            body: FCMRequest.body(message, token: token))
        authorizeAndPost(prepared, completion)
    }

    private func authorizeAndPost(_ prepared: Prepared, _ completion: @escaping @Sendable (DeliveryResult) -> Void) {
        accessTokens.accessToken(for: prepared.account) { [self] result in
            switch result {
            case .success(let accessToken): post(prepared, accessToken, completion)
            case .failure(let error): completion(Self.result(of: error))
            }
        }
    }

    private func post(
        _ prepared: Prepared, _ accessToken: String, _ completion: @escaping @Sendable (DeliveryResult) -> Void
    ) {
        let request = FCMRequest.make(url: prepared.url, body: prepared.body, accessToken: accessToken)
        let started = UpstreamMeter.start()
        transport.submit(request) { [self] outcome in
            meter.record(outcome, since: started)
            switch FCMVerdict.interpret(outcome, now: clock.now()) {
            case .delivered(let name):
                completion(.delivered(id: name))
            case .dead(let reason):
                completion(.deadToken(reason: reason, since: nil))
            case .unauthenticated(let reason):
                guard !prepared.refreshedAccessToken else { return completion(.rejected(status: 401, reason: reason)) }
                accessTokens.invalidate(accessToken, for: prepared.account)
                var again = prepared
                again.refreshedAccessToken = true
                authorizeAndPost(again, completion)
            case .rejected(let status, let reason):
                completion(.rejected(status: status, reason: reason))
            case .retryLater(let reason, let after):
                completion(.retryLater(reason: reason, afterSeconds: after))
            }
        }
    }

    /// No access token: a refused service account is the app's fault, the rest may pass.
    private static func result(of error: AccessTokenError) -> DeliveryResult {
        switch error {
        case .refused(let status, _): return .rejected(status: status, reason: error.description)
        case .unavailable(_, let retryAfter): return .retryLater(reason: error.description, afterSeconds: retryAfter)
        case .signing: return .rejected(status: 500, reason: error.description)
        }
    }
}
