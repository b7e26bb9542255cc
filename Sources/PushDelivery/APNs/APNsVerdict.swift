import Foundation

/// What one APNs reply means for the push, before the client decides on a retry.
enum APNsVerdict: Equatable {
    case delivered(id: String?)
    /// The token is dead for this topic; `since` is the 410 `timestamp` (ms since 1970).
    case dead(reason: String, since: Int64?)
    /// 400 `BadDeviceToken`: dead, or valid in the other environment.
    case badDeviceToken
    /// 403 `ExpiredProviderToken` / `InvalidProviderToken`: worth one renewed JWT.
    case providerTokenRefused(reason: String)
    case rejected(status: Int, reason: String)
    case retryLater(reason: String, afterSeconds: Int?)

    /// Interprets a reply per developer.apple.com, "Handling notification responses from APNs".
    static func interpret(_ outcome: UpstreamOutcome, now: Int) -> APNsVerdict {
        let response: UpstreamResponse
        switch outcome {
        case .failure(let error):
            return .retryLater(reason: "APNs \(error)", afterSeconds: nil)
        case .success(let reply):
            response = reply
        }
        if response.status == 200 {
            return .delivered(id: response.header("apns-id"))
        }
        let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
        let reason = body?.reason ?? "HTTP \(response.status)"
        let retryAfter = RetryAfter.seconds(response.header("retry-after"), now: now)
        switch (response.status, reason) {
        case (410, _):
            // Unregistered, ExpiredToken: APNs confirmed the token invalid at `timestamp`.
            return .dead(reason: reason, since: body?.timestamp)
        case (400, "BadDeviceToken"):
            return .badDeviceToken
        case (400, "DeviceTokenNotForTopic"):
            return .dead(reason: reason, since: nil)
        case (403, "ExpiredProviderToken"), (403, "InvalidProviderToken"):
            return .providerTokenRefused(reason: reason)
        case (429, _), (500...599, _):
            // TooManyRequests, InternalServerError, ServiceUnavailable, Shutdown.
            return .retryLater(reason: reason, afterSeconds: retryAfter)
        default:
            return .rejected(status: response.status, reason: reason)
        }
    }

    /// `{"reason": "…", "timestamp": 1234}` (timestamp only with 410).
    private struct ErrorBody: Decodable {
        var reason: String?
        var timestamp: Int64?
    }
}
