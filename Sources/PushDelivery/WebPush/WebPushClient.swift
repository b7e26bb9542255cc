import Logging
import PushCore
import PushCrypto

/// Delivers pushes of Web Push apps: each message encrypted for its subscription (RFC 8291),
/// signed with the app's VAPID key (RFC 8292) and posted to the subscription's endpoint
/// (RFC 8030). Endpoints are the subscriber's to choose, so the client refuses, before
/// sending, any endpoint the operator's allow-list does not cover, and before connecting, any
/// address in a special-purpose range the operator did not list with its port.
public final class WebPushClient: PlatformDeliverer {
    public var platform: Platform { .web }

    private let transport: HTTP2Transport
    private let meter: UpstreamMeter
    private let endpoints: WebPushEndpointPolicy
    private let tokens: VAPIDTokenCache
    private let credentials: CredentialCache
    private let clock: UnixClock
    private let logger: Logger

    /// `endpoints` is `PUSHGATE_WEBPUSH_ENDPOINTS`.
    public convenience init(
        transport: HTTP2Transport, endpoints: WebPushEndpointPolicy, clock: UnixClock = .system, logger: Logger
    ) {
        self.init(
            transport: transport, endpoints: endpoints, tokens: VAPIDTokenCache(clock: clock),
            credentials: CredentialCache(), metrics: .off, clock: clock, logger: logger)
    }

    init(
        transport: HTTP2Transport, endpoints: WebPushEndpointPolicy, tokens: VAPIDTokenCache,
        credentials: CredentialCache, metrics: DeliveryMetrics, clock: UnixClock, logger: Logger
    ) {
        self.transport = transport
        meter = UpstreamMeter(provider: .web, metrics: metrics)
        self.endpoints = endpoints
        self.tokens = tokens
        self.credentials = credentials
        self.clock = clock
        self.logger = logger
    }

    public func send(
        _ notification: PushCore.Notification, app: RegisteredApp,
        completion: @escaping @Sendable (DeliveryResult) -> Void
    ) {
        guard let message = notification.web else {
            return completion(.rejected(status: 400, reason: "MissingPayload: the push has no Web Push message"))
        }
        // The dialect's reading when it made one; a push from the outbox carries only its token.
        guard let subscription = notification.subscription ?? WebPushSubscription(token: notification.token) else {
            return completion(.rejected(status: 400, reason: "BadRequest: the token is not a Web Push subscription"))
        }
        guard message.payload.count <= WebPushMessage.maximumPayloadLength else {
            return completion(
                .rejected(
                    status: 413,
                    reason:
                        "PayloadTooLarge: \(message.payload.count) bytes, Web Push carries at most \(WebPushMessage.maximumPayloadLength) (not sent)"
                ))
        }
        if let refusal = endpoints.refusal(of: subscription.endpoint) {
            return completion(.rejected(status: 400, reason: "EndpointRefused: \(refusal)"))
        }
        let signer: (key: VAPIDKey, subject: String)
        switch credentials.vapidKey(for: app) {
        case .success(let value): signer = value
        case .failure(let error):
            logger.warning("Web Push credentials unusable", metadata: ["app": "\(error.app)", "error": "\(error.reason)"])
            return completion(.rejected(status: 500, reason: error.description))
        }
        let authorization: String
        do {
            authorization = try tokens.authorization(key: signer.key, subject: signer.subject, audience: subscription.origin)
        } catch {
            return completion(.rejected(status: 500, reason: "credentials of app \(app.id) unusable: VAPID signing: \(error)"))
        }
        let body: [UInt8]
        do {
            body = try WebPushRequest.body(payload: message.payload, p256dh: subscription.p256dh, auth: subscription.auth)
        } catch {
            // Keys that are no P-256 point can never be encrypted for: the subscription is void.
            return completion(.deadToken(reason: "BadSubscription: \(error)", since: nil))
        }
        let request = WebPushRequest.make(
            endpoint: subscription.endpoint.url, body: body, ttl: message.ttl, urgency: message.urgency?.rawValue,
            topic: message.topic, authorization: authorization, addressCheck: addressCheck(for: subscription))
        let started = UpstreamMeter.start()
        transport.submit(request) { [self] outcome in
            meter.record(outcome, since: started)
            switch WebPushVerdict.interpret(outcome, now: clock.now()) {
            case .delivered(let location):
                completion(.delivered(id: location))
            case .gone(let reason):
                completion(.deadToken(reason: reason, since: nil))
            case .credentialsRefused(let status, let reason):
                // Sign afresh next time: a token the service refused is not worth reusing.
                tokens.invalidate(key: signer.key, subject: signer.subject, audience: subscription.origin)
                completion(.rejected(status: status, reason: "\(reason) (the push service refused the VAPID credentials of app \(app.id))"))
            case .rejected(let status, let reason):
                completion(.rejected(status: status, reason: reason))
            case .retryLater(let reason, let after):
                completion(.retryLater(reason: reason, afterSeconds: after))
            }
        }
    }

    /// Refuses to connect to an address the policy keeps out (a public hostname whose DNS
    /// answers 10.0.0.5, say): the address gets no connection attempt and nothing is sent.
    private func addressCheck(for subscription: WebPushSubscription) -> ConnectedAddressCheck {
        let endpoints = self.endpoints
        let origin = subscription.origin
        return ConnectedAddressCheck(name: "PUSHGATE_WEBPUSH_ENDPOINTS") { address, port in
            guard let parsed = IPAddress(address) else {
                return "\(origin) resolved to \(address), no IP address (not sent)"
            }
            guard let range = endpoints.refusedRange(of: parsed, port: port) else { return nil }
            return
                "\(origin) resolved to \(address) port \(port), in \(range), which PUSHGATE_WEBPUSH_ENDPOINTS does not list (not connected, not sent)"
        }
    }
}
