import Foundation
import MockUpstream
import PushCrypto
import XCTest

/// A mock Web Push service for one test.
func startWebPush(_ adjust: (inout MockWebPushConfiguration) -> Void = { _ in }) throws -> MockWebPush {
    var configuration = MockWebPushConfiguration()
    configuration.eventLoopThreads = 1
    adjust(&configuration)
    return try MockWebPush(configuration: configuration)
}

/// What a sender puts on the wire, built by PushCrypto, each part replaceable to test refusals.
struct WebPushSend {
    var subscription: MockWebPushSubscription
    var key: VAPIDKey
    var plaintext = Array(#"{"title":"Hello"}"#.utf8)
    var headers: [String: String] = [:]
    var body: [UInt8]? = nil

    init(to subscription: MockWebPushSubscription, key: VAPIDKey) {
        self.subscription = subscription
        self.key = key
    }

    /// A valid VAPID header for the endpoint's origin unless `audience`/`expiresIn`/`subject` say otherwise.
    static func authorization(
        key: VAPIDKey, audience: String, subject: String = "mailto:ops@example.com", expiresIn: Int = 3600
    ) throws -> String {
        let token = try VAPIDToken.sign(
            audience: audience, subject: subject, expiresAt: Int(Date().timeIntervalSince1970) + expiresIn, key: key)
        return try VAPIDToken.authorization(token: token, key: key)
    }

    func post(http1: Bool = false, extraArguments: [String] = []) throws -> CurlResponse {
        let origin = "https://" + subscription.endpoint.dropFirst("https://".count).prefix { $0 != "/" }
        var all = [
            "content-encoding": "aes128gcm", "ttl": "60",
            "authorization": try Self.authorization(key: key, audience: origin),
        ]
        all.merge(headers) { _, replacement in replacement }
        let body = try body
            ?? WebPushEncryption.encrypt(plaintext, receiverPublicKey: subscription.p256dh, authSecret: subscription.auth)
        return try Curl.post(
            subscription.endpoint, headers: all.filter { !$0.value.isEmpty }, body: body, http1: http1,
            extraArguments: extraArguments)
    }
}
