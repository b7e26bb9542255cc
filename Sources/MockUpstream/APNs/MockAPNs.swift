/// A local stand-in for Apple's push provider API: HTTP/2 over TLS (ALPN `h2`) on 127.0.0.1,
/// answering `POST /3/device/<token>` with Apple's statuses and reasons, verifying provider
/// tokens (ES256 JWTs) or client certificates, and recording what it received. Device tokens
/// must be hex (an even number of digits, at least 16). Started by `init`; call `shutdown()`.
///
///     let apns = try MockAPNs(configuration: .init(providerKeys: [.fixture]))
///     defer { apns.shutdown() }
///     // point the client at apns.baseURL, trusting MockFixtures.caFile
public final class MockAPNs: MockService {
    public let configuration: MockAPNsConfiguration
    private let responder: APNsResponder
    private let server: MockServer

    public init(configuration: MockAPNsConfiguration) throws {
        self.configuration = configuration
        responder = try APNsResponder(configuration: configuration)
        server = try MockServer(serving: configuration, protocols: ["h2"], responder: responder)
    }

    public var port: Int { server.port }

    /// Stops listening and closes every connection. Blocks until done; idempotent enough to call
    /// from `defer` and `tearDown` both.
    public func shutdown() {
        server.shutdown()
    }

    // MARK: Recording

    public var log: RequestLog { responder.log }

    /// TLS connections accepted so far.
    public var connectionCount: Int { server.connectionCount }

    /// Distinct provider tokens taken into use, by key id: a client that renews too often or
    /// mints a token per connection shows here.
    public var providerTokenCounts: [String: Int] { responder.verifier.distinctTokens }

    /// New provider tokens refused with `TooManyProviderTokenUpdates`.
    public var providerTokenUpdatesRefused: Int { responder.verifier.refusedUpdates }

    // MARK: Scripting

    /// What to answer for `token` once a request is otherwise valid; nil makes it live again.
    public func setOutcome(_ outcome: APNsTokenOutcome?, forToken token: String) {
        responder.setOutcome(outcome, forToken: token)
    }

    /// Applies `fault` to the next `count` requests (after faults already queued).
    public func inject(_ fault: MockFault, forNext count: Int = 1) {
        responder.faults.inject(fault, forNext: count)
    }

    /// Applies `fault` to requests for `token`: the next `times`, or all while nil.
    public func inject(_ fault: MockFault, forToken token: String, times: Int? = nil) {
        responder.faults.inject(fault, forToken: token, times: times)
    }

    /// Drops injected faults, token outcomes, the provider-token history and the log: a fresh mock
    /// on the same port.
    public func reset() {
        responder.faults.clear()
        responder.clearOutcomes()
        responder.verifier.reset()
        responder.log.clear()
    }

    /// Drops injected faults only.
    public func clearFaults() {
        responder.faults.clear()
    }
}
