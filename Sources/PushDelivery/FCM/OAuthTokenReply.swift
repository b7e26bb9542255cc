import Foundation

/// Reads a token endpoint's reply to the JWT-bearer grant: `{"access_token", "expires_in",
/// "token_type"}`, or `{"error", "error_description"}` (RFC 6749 §5.1–5.2; Google's
/// developers.google.com/identity/protocols/oauth2/service-account, "Handling the response").
enum OAuthTokenReply {
    static func interpret(_ outcome: UpstreamOutcome, now: Int) -> Result<(token: String, expiresIn: Int), AccessTokenError> {
        let response: UpstreamResponse
        switch outcome {
        case .failure(let error): return .failure(.unavailable(reason: error.description, retryAfter: nil))
        case .success(let reply): response = reply
        }
        let retryAfter = RetryAfter.seconds(response.header("retry-after"), now: now)
        guard response.status == 200 else {
            let body = try? JSONDecoder().decode(ErrorBody.self, from: Data(response.body))
            let reason = [body?.error, body?.errorDescription].compactMap { $0 }.joined(separator: ": ")
            let text = reason.isEmpty ? "HTTP \(response.status)" : reason
            if response.status == 429 || response.status >= 500 {
                return .failure(.unavailable(reason: text, retryAfter: retryAfter))
            }
            return .failure(.refused(status: response.status, reason: text))
        }
        guard let body = try? JSONDecoder().decode(TokenBody.self, from: Data(response.body)), !body.accessToken.isEmpty
        else {
            return .failure(.unavailable(reason: "token endpoint reply without access_token", retryAfter: nil))
        }
        // Google grants an hour; an absent expires_in is taken as that.
        return .success((body.accessToken, body.expiresIn ?? 3600))
    }

    private struct TokenBody: Decodable {
        var accessToken: String
        var expiresIn: Int?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case expiresIn = "expires_in"
        }
    }

    private struct ErrorBody: Decodable {
        var error: String?
        var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }
}
