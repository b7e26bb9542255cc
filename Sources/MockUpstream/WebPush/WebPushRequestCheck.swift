import Foundation
import PushCrypto

/// Judges one push message as a push service would (RFC 8030, RFC 8292), then does what only a
/// mock can: decrypts it with the subscriber's keys (RFC 8291), so a test learns whether the
/// browser would have read it.
struct WebPushRequestCheck: Sendable {
    let configuration: MockWebPushConfiguration

    static let urgencies: Set<String> = ["very-low", "low", "normal", "high"]

    /// The accepted message, or why not.
    func judge(_ request: MockHTTPRequest, subscription entry: WebPushSubscriptionBook.Entry, now: Date) -> Result<
        MockWebPushMessage, AutopushError
    > {
        let headers = request.headers
        if request.bodyTruncated || request.body.count > configuration.maximumBodyLength {
            return .failure(.tooLarge(request.body.count, limit: configuration.maximumBodyLength))
        }
        let subject: String
        // The origin the client called (`:authority`, `Host`) is the one its token must name.
        let origin = "https://" + (request.authority ?? "")
        switch vapidSubject(headers["authorization"], origin: origin, now: now) {
        case .success(let claimed): subject = claimed
        case .failure(let error): return .failure(error)
        }
        guard let ttlText = headers["ttl"] else { return .failure(.missingTTL) }
        guard let ttl = Int(ttlText), ttl >= 0 else {
            return .failure(.invalidHeader("TTL must be a non-negative integer, got \(ttlText)"))
        }
        let urgency = headers["urgency"]
        if let urgency, !Self.urgencies.contains(urgency) {
            return .failure(.invalidHeader("Urgency must be very-low, low, normal or high, got \(urgency)"))
        }
        let topic = headers["topic"]
        if let topic, topic.isEmpty || topic.utf8.count > 32 || !topic.utf8.allSatisfy(Self.isBase64URLCharacter) {
            return .failure(.invalidHeader("Topic must be at most 32 base64url characters"))
        }
        guard headers["content-encoding"] == "aes128gcm" else {
            return .failure(.badEncryption("Content-Encoding must be aes128gcm, got \(headers["content-encoding"] ?? "none")"))
        }
        do {
            let plaintext = try WebPushEncryption.decrypt(
                request.body, receiverKeys: entry.keys, authSecret: entry.subscription.auth)
            return .success(
                MockWebPushMessage(
                    subscriptionID: entry.subscription.id, plaintext: plaintext,
                    ttl: min(ttl, configuration.maximumTTL), urgency: urgency, topic: topic, subject: subject))
        } catch {
            return .failure(.badEncryption("The subscriber could not decrypt the message: \(error)"))
        }
    }

    private static func isBase64URLCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// The `sub` of a valid VAPID token: signed by `k`, for this origin, not expired, at most
    /// the allowed lifetime ahead.
    private func vapidSubject(_ header: String?, origin: String, now: Date) -> Result<String, AutopushError> {
        guard let header else { return .failure(.unauthorized("Missing Authorization header (VAPID)")) }
        guard let vapid = VAPIDAuthorization(header: header) else {
            return .failure(.unauthorized("Authorization is not 'vapid t=<JWT>, k=<public key>'"))
        }
        guard let decoded = vapid.verifiedClaims() else {
            return .failure(.unauthorized("The VAPID JWT's signature does not verify against k"))
        }
        guard decoded.claims["aud"] == .string(origin) else {
            return .failure(.unauthorized("The VAPID aud must be \(origin)"))
        }
        let nowSeconds = Int(now.timeIntervalSince1970)
        guard case .number(let expiry)? = decoded.claims["exp"] else {
            return .failure(.unauthorized("The VAPID JWT has no exp"))
        }
        guard Int(expiry) > nowSeconds else { return .failure(.unauthorized("The VAPID JWT has expired")) }
        guard Int(expiry) <= nowSeconds + configuration.maximumTokenLifetime else {
            return .failure(.unauthorized("The VAPID exp is more than 24 hours ahead"))
        }
        guard case .string(let subject)? = decoded.claims["sub"],
            subject.hasPrefix("mailto:") || subject.hasPrefix("https:")
        else { return .failure(.unauthorized("The VAPID sub must be a mailto: or https: URL")) }
        return .success(subject)
    }
}
