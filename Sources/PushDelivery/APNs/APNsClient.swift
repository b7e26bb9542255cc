import Logging
import PushCore

/// Delivers pushes of APNs apps through the provider API over HTTP/2: builds each request,
/// signs it (provider JWT or client certificate), and turns Apple's reply into a
/// `DeliveryResult`, retrying once where Apple's reply says a retry can succeed.
public final class APNsClient: PlatformDeliverer {
    public var platform: Platform { .apns }

    private let transport: HTTP2Transport
    private let meter: UpstreamMeter
    private let endpoints: APNsEndpoints
    private let providerTokens: ProviderTokenCache
    private let credentials: CredentialCache
    private let events: DeliveryEvents
    private let clock: UnixClock
    private let logger: Logger

    public convenience init(
        transport: HTTP2Transport, endpoints: APNsEndpoints, providerTokens: ProviderTokenCache,
        events: DeliveryEvents = IgnoredDeliveryEvents(), clock: UnixClock = .system, logger: Logger
    ) {
        self.init(
            transport: transport, endpoints: endpoints, providerTokens: providerTokens, credentials: CredentialCache(),
            events: events, metrics: .off, clock: clock, logger: logger)
    }

    init(
        transport: HTTP2Transport, endpoints: APNsEndpoints, providerTokens: ProviderTokenCache,
        credentials: CredentialCache, events: DeliveryEvents, metrics: DeliveryMetrics, clock: UnixClock, logger: Logger
    ) {
        self.transport = transport
        meter = UpstreamMeter(provider: .apns, metrics: metrics)
        self.endpoints = endpoints
        self.providerTokens = providerTokens
        self.credentials = credentials
        self.events = events
        self.clock = clock
        self.logger = logger
    }

    /// One push's way through APNs: where it is sent and which second chances it has used.
    private struct Attempt: Sendable {
        var notification: PushCore.Notification
        var message: APNsMessage
        /// Decided once, in `send`: every request of the attempt goes out with it.
        var pushType: APNsPushType
        var app: RegisteredApp
        var sandbox: Bool
        var bearer: String?
        var triedOtherEnvironment = false
        var renewedProviderToken = false
    }

    public func send(
        _ notification: PushCore.Notification, app: RegisteredApp,
        completion: @escaping @Sendable (DeliveryResult) -> Void
    ) {
        guard let message = notification.apns else {
            return completion(.rejected(status: 400, reason: "MissingPayload: the push has no APNs payload"))
        }
        // Decided once: the push's own, set where it was made (Matrix, pnm2, cospace), else the app's.
        let pushType = message.pushType ?? app.apnsPushType ?? .alert
        let limit = pushType.payloadLimit
        guard message.payload.count <= limit else {
            return completion(
                .rejected(
                    status: 413,
                    reason: "PayloadTooLarge: \(message.payload.count) bytes, APNs takes \(limit) for \(pushType.rawValue)"))
        }
        // Apple would refuse these too; refusing here keeps a provider connection's requests
        // to the ones that can be delivered.
        if let refusal = APNsControlRefusal.check(message, pushType: pushType) {
            return completion(
                .rejected(status: 400, reason: "\(refusal.appleReason): \(refusal.control.rawValue) \(refusal.detail)"))
        }
        let authentication: APNsAuthentication
        switch credentials.apnsAuthentication(for: app) {
        case .success(let value): authentication = value
        case .failure(let error): return completion(credentialFailure(error))
        }
        var attempt = Attempt(
            notification: notification, message: message, pushType: pushType, app: app,
            sandbox: notification.sandbox ?? app.sandbox)
        if case .token(let key) = authentication {
            do {
                attempt.bearer = try providerTokens.token(for: key)
            } catch {
                return completion(credentialFailure(CredentialError(app: app.id, reason: "signing the provider token: \(error)")))
            }
        }
        post(attempt, authentication, completion)
    }

    private func post(
        _ attempt: Attempt, _ authentication: APNsAuthentication, _ completion: @escaping @Sendable (DeliveryResult) -> Void
    ) {
        var identity: ClientIdentity?
        if case .certificate(let value) = authentication { identity = value }
        let request = APNsRequest.make(
            attempt.message, pushType: attempt.pushType, token: attempt.notification.token, app: attempt.app,
            sandbox: attempt.sandbox, endpoints: endpoints, bearer: attempt.bearer, identity: identity)
        let started = UpstreamMeter.start()
        transport.submit(request) { [self] outcome in
            meter.record(outcome, since: started)
            let verdict = APNsVerdict.interpret(outcome, now: clock.now())
            handle(verdict, attempt, authentication, completion)
        }
    }

    private func handle(
        _ verdict: APNsVerdict, _ attempt: Attempt, _ authentication: APNsAuthentication,
        _ completion: @escaping @Sendable (DeliveryResult) -> Void
    ) {
        switch verdict {
        case .delivered(let id):
            if attempt.triedOtherEnvironment {
                events.apnsEnvironmentCorrected(for: attempt.notification, sandbox: attempt.sandbox)
            }
            completion(.delivered(id: id))
        case .dead(let reason, let since):
            completion(.deadToken(reason: reason, since: since))
        case .badDeviceToken:
            // Often a sandbox/production mix-up rather than a dead token: ask the other
            // environment once before the device is pruned.
            guard !attempt.triedOtherEnvironment else {
                return completion(.deadToken(reason: "BadDeviceToken", since: nil))
            }
            var next = attempt
            next.sandbox.toggle()
            next.triedOtherEnvironment = true
            post(next, authentication, completion)
        case .providerTokenRefused(let reason):
            // Even in the other environment: a refused JWT says nothing about the device token.
            guard let renewed = renewedAttempt(attempt, authentication) else {
                return completion(.rejected(status: 403, reason: reason))
            }
            post(renewed, authentication, completion)
        case .rejected(let status, let reason):
            // In the other environment a refusal only confirms the first answer: BadDeviceToken.
            completion(attempt.triedOtherEnvironment
                ? .deadToken(reason: "BadDeviceToken", since: nil) : .rejected(status: status, reason: reason))
        case .retryLater(let reason, let after):
            completion(.retryLater(reason: reason, afterSeconds: after))
        }
    }

    /// The attempt again with a renewed provider token, or nil when it had its renewal already,
    /// uses a certificate, or the cache refuses to renew so soon.
    private func renewedAttempt(_ attempt: Attempt, _ authentication: APNsAuthentication) -> Attempt? {
        guard !attempt.renewedProviderToken, case .token(let key) = authentication, let bearer = attempt.bearer else {
            return nil
        }
        do {
            guard let token = try providerTokens.renewedToken(for: key, replacing: bearer) else { return nil }
            var next = attempt
            next.bearer = token
            next.renewedProviderToken = true
            return next
        } catch {
            logger.warning("APNs provider token renewal failed", metadata: ["app": "\(attempt.app.id)", "error": "\(error)"])
            return nil
        }
    }

    private func credentialFailure(_ error: CredentialError) -> DeliveryResult {
        logger.warning("APNs credentials unusable", metadata: ["app": "\(error.app)", "error": "\(error.reason)"])
        return .rejected(status: 500, reason: error.description)
    }
}
