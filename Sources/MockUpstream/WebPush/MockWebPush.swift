import Foundation

/// A local stand-in for a Web Push service (RFC 8030) such as Mozilla's autopush: HTTPS
/// (HTTP/2 or HTTP/1.1 by ALPN) on 127.0.0.1. It creates subscriptions, holding their private
/// keys like a browser, checks each message's headers and VAPID token, decrypts it and records
/// the plaintext, and answers 201, or autopush's errors. Started by `init`; call `shutdown()`.
///
///     let push = try MockWebPush(configuration: .init())
///     defer { push.shutdown() }
///     let subscription = try push.createSubscription()  // endpoint + p256dh + auth
///     // … send to subscription.endpoint, trusting MockFixtures.caFile …
///     push.messages.first?.text
public final class MockWebPush: MockService {
    public let configuration: MockWebPushConfiguration
    private let responder: WebPushResponder
    private let server: MockServer

    public init(configuration: MockWebPushConfiguration) throws {
        self.configuration = configuration
        responder = WebPushResponder(configuration: configuration)
        server = try MockServer(serving: configuration, protocols: ["h2", "http/1.1"], responder: responder)
    }

    public var port: Int { server.port }

    public func shutdown() {
        server.shutdown()
    }

    // MARK: Subscriptions

    /// A new subscription with fresh keys, its endpoint on this mock.
    public func createSubscription() throws -> MockWebPushSubscription {
        try responder.subscriptions.create(endpointPrefix: baseURL + WebPushResponder.pushPath)
    }

    /// Makes the subscription answer 410 Gone (the user unsubscribed), or live again.
    public func markGone(_ subscription: MockWebPushSubscription, _ gone: Bool = true) {
        responder.subscriptions.markGone(subscription.id, gone)
    }

    // MARK: Recording

    /// Every message accepted and decrypted, oldest first.
    public var messages: [MockWebPushMessage] { responder.subscriptions.messages }

    public func messages(for subscription: MockWebPushSubscription) -> [MockWebPushMessage] {
        messages.filter { $0.subscriptionID == subscription.id }
    }

    public var log: RequestLog { responder.log }

    public var connectionCount: Int { server.connectionCount }

    // MARK: Scripting

    /// Applies `fault` to the next `count` messages (`.status(429, …, retryAfter:)`, 5xx, …).
    public func inject(_ fault: MockFault, forNext count: Int = 1) {
        responder.faults.inject(fault, forNext: count)
    }

    /// Applies `fault` to messages for one subscription: the next `times`, or all while nil.
    public func inject(_ fault: MockFault, for subscription: MockWebPushSubscription, times: Int? = nil) {
        responder.faults.inject(fault, forToken: subscription.id, times: times)
    }

    public func clearFaults() {
        responder.faults.clear()
    }

    /// Drops faults, the log and the recorded messages; subscriptions stay.
    public func reset() {
        clearFaults()
        responder.subscriptions.clearMessages()
        responder.log.clear()
    }
}
