import Foundation

/// What one push service reply means (RFC 8030 §5–§8, RFC 8292 §4.2, and what autopush, FCM
/// and Apple answer), before the client turns it into a `DeliveryResult`. Each reason starts
/// with a word naming the case, the bounded metrics label.
enum WebPushVerdict: Equatable {
    /// `location` names the message resource (RFC 8030 §5).
    case delivered(location: String?)
    /// 404, 410: the subscription expired or the user unsubscribed.
    case gone(reason: String)
    /// 401, 403: the push service refused our VAPID token or key, the operator's to fix.
    case credentialsRefused(status: Int, reason: String)
    /// 400, 413 and other refusals of this message: not worth sending again as it is.
    case rejected(status: Int, reason: String)
    /// 429, 5xx, no answer: try again, after `Retry-After` when given.
    case retryLater(reason: String, afterSeconds: Int?)

    /// The reason words, `UpstreamReasonLabel`'s list for Web Push (with `BadSubscription`,
    /// the client's own for keys nothing can be encrypted to).
    static let reasonWords: Set<String> = [
        "BadRequest", "Unauthorized", "Forbidden", "NotFound", "Gone", "PayloadTooLarge", "TooManyRequests",
        "ServiceUnavailable", "EndpointRefused", "Refused", "BadSubscription",
    ]

    static func interpret(_ outcome: UpstreamOutcome, now: Int) -> WebPushVerdict {
        let response: UpstreamResponse
        switch outcome {
        case .failure(.invalidRequest(let message)):
            // Nothing was sent: a refused address or a URL curl cannot use; the same again fails.
            return .rejected(status: 400, reason: "EndpointRefused: \(message)")
        case .failure(let error):
            return .retryLater(reason: "ServiceUnavailable: push service \(error)", afterSeconds: nil)
        case .success(let reply):
            response = reply
        }
        if (200...299).contains(response.status) { return .delivered(location: response.header("location")) }
        let explanation = Self.explanation(response)
        let retryAfter = RetryAfter.seconds(response.header("retry-after"), now: now)
        switch response.status {
        case 404: return .gone(reason: "NotFound: \(explanation)")
        case 410: return .gone(reason: "Gone: \(explanation)")
        case 413: return .rejected(status: 413, reason: "PayloadTooLarge: \(explanation)")
        case 401: return .credentialsRefused(status: 401, reason: "Unauthorized: \(explanation)")
        case 403: return .credentialsRefused(status: 403, reason: "Forbidden: \(explanation)")
        case 429: return .retryLater(reason: "TooManyRequests: \(explanation)", afterSeconds: retryAfter)
        case 500...599:
            return .retryLater(reason: "ServiceUnavailable: HTTP \(response.status) \(explanation)", afterSeconds: retryAfter)
        case 400: return .rejected(status: 400, reason: "BadRequest: \(explanation)")
        default: return .rejected(status: response.status, reason: "Refused: HTTP \(response.status) \(explanation)")
        }
    }

    /// What the service said, in its words: autopush's `message` (with `errno`), Apple's
    /// `reason`, or the body's first line of text; bounded, since it comes from outside.
    static func explanation(_ response: UpstreamResponse) -> String {
        if let object = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] {
            if let message = object["message"] as? String {
                return bounded(object["errno"].map { "\(message) (errno \($0))" } ?? message)
            }
            if let reason = object["reason"] as? String { return bounded(reason) }
            if let error = object["error"] as? String { return bounded(error) }
        }
        let text = response.bodyText.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return text.isEmpty ? "HTTP \(response.status)" : bounded(text)
    }

    private static func bounded(_ text: String) -> String {
        let printable = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return printable.count > 200 ? String(printable.prefix(200)) + "…" : printable
    }
}
