import Foundation

/// What one FCM HTTP v1 reply means for the push, before the client decides on a retry.
enum FCMVerdict: Equatable {
    /// `name` is the message's resource name, `projects/*/messages/{id}`.
    case delivered(name: String?)
    case dead(reason: String)
    /// 401 for our OAuth token: worth one refreshed access token.
    case unauthenticated(reason: String)
    case rejected(status: Int, reason: String)
    case retryLater(reason: String, afterSeconds: Int?)

    /// Interprets a reply per firebase.google.com, "FCM error codes" (REST v1 `ErrorCode`).
    static func interpret(_ outcome: UpstreamOutcome, now: Int) -> FCMVerdict {
        let response: UpstreamResponse
        switch outcome {
        case .failure(let error): return .retryLater(reason: "FCM \(error)", afterSeconds: nil)
        case .success(let reply): response = reply
        }
        if response.status == 200 {
            let body = try? JSONDecoder().decode(SuccessBody.self, from: Data(response.body))
            return .delivered(name: body?.name)
        }
        let error = (try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(response.body)))?.error
        // The FcmError detail is the precise code; the status (e.g. NOT_FOUND) is the gRPC one.
        let code = error?.details?.first { $0.type?.hasSuffix("google.firebase.fcm.v1.FcmError") == true }?.errorCode
            ?? error?.status ?? "HTTP \(response.status)"
        let reason = error?.message.map { "\(code): \($0)" } ?? code
        let retryAfter = RetryAfter.seconds(response.header("retry-after"), now: now)
        switch (response.status, code) {
        case (_, "UNREGISTERED"), (404, _), (_, "SENDER_ID_MISMATCH"):
            return .dead(reason: reason)
        case (_, "THIRD_PARTY_AUTH_ERROR"):
            // Firebase's APNs/web-push credentials are at fault, not our access token.
            return .rejected(status: response.status, reason: reason)
        case (401, _):
            return .unauthenticated(reason: reason)
        case (429, _), (500...599, _), (_, "QUOTA_EXCEEDED"), (_, "UNAVAILABLE"), (_, "INTERNAL"):
            return .retryLater(reason: reason, afterSeconds: retryAfter)
        default:
            // INVALID_ARGUMENT among others: the payload may be at fault, the token stays.
            return .rejected(status: response.status, reason: reason)
        }
    }

    private struct SuccessBody: Decodable {
        var name: String?
    }

    /// `{"error": {"code", "message", "status", "details": [{"@type", "errorCode"}]}}`.
    private struct ErrorEnvelope: Decodable {
        var error: ErrorBody?
    }

    private struct ErrorBody: Decodable {
        var message: String?
        var status: String?
        var details: [Detail]?
    }

    private struct Detail: Decodable {
        var type: String?
        var errorCode: String?

        enum CodingKeys: String, CodingKey {
            case type = "@type"
            case errorCode
        }
    }
}
