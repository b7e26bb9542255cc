import Foundation
import PushCore
import PushCrypto

/// The OAuth 2.0 token endpoint of a service account's `token_uri`: takes the JWT-bearer grant
/// (RFC 7523), verifies the RS256 assertion against the registered account's public key, and
/// issues a bearer access token.
/// (developers.google.com/identity/protocols/oauth2/service-account, "Making the access token request".)
struct OAuthTokenEndpoint: Sendable {
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"
    /// Google allows at most an hour between `iat` and `exp`.
    static let maximumAssertionLifetime: Double = 3600
    /// Clock skew tolerated on `iat` in the future.
    static let allowedSkew: Double = 300

    private struct Account: Sendable {
        let account: MockFCMServiceAccount
        let publicKey: JWTPublicKey
    }

    private let accounts: [String: Account]
    let tokens: AccessTokenStore
    let lifetime: Int
    let path: String

    init(accounts: [MockFCMServiceAccount], tokens: AccessTokenStore, lifetime: Int, path: String) throws {
        var registered: [String: Account] = [:]
        for account in accounts {
            let key = try JWTPublicKey(pem: account.publicKeyPEM)
            guard key.algorithm == .rs256 else {
                throw CryptoError.wrongKeyType(found: "EC", expected: "RSA (service account \(account.clientEmail))")
            }
            registered[account.clientEmail] = Account(account: account, publicKey: key)
        }
        self.accounts = registered
        self.tokens = tokens
        self.lifetime = lifetime
        self.path = path
    }

    func answer(_ request: MockHTTPRequest, now: Date) -> EndpointAnswer {
        guard request.method == "POST" else {
            return refuse(405, "invalid_request", "token requests must be POST")
        }
        guard let form = try? FormParameters.parse(String(decoding: request.body, as: UTF8.self)) else {
            return refuse(400, "invalid_request", "body is not application/x-www-form-urlencoded")
        }
        guard let grant = form["grant_type"] else {
            return refuse(400, "invalid_request", "Missing required parameter: grant_type")
        }
        guard grant == Self.grantType else {
            return refuse(400, "unsupported_grant_type", "Invalid grant_type: \(grant)")
        }
        guard let assertion = form["assertion"], let decoded = try? JWT.decode(assertion) else {
            return refuse(400, "invalid_grant", "Invalid JWT: the assertion is missing or malformed")
        }
        guard let email = decoded.claims["iss"]?.stringValue, let account = accounts[email] else {
            return refuse(400, "invalid_grant", "Invalid email or User ID")
        }
        guard JWT.verify(assertion, with: account.publicKey) else {
            return refuse(400, "invalid_grant", "Invalid JWT Signature.", email: email)
        }
        let audience = "https://\(request.authority ?? "127.0.0.1")\(path)"
        guard decoded.claims["aud"]?.stringValue == audience else {
            return refuse(
                400, "invalid_grant", "Invalid JWT: Failed audience check. The right audience is \(audience)",
                email: email)
        }
        guard let issuedAt = decoded.claims["iat"]?.numberValue, let expiresAt = decoded.claims["exp"]?.numberValue,
            expiresAt - issuedAt <= Self.maximumAssertionLifetime, expiresAt > now.timeIntervalSince1970,
            issuedAt <= now.timeIntervalSince1970 + Self.allowedSkew
        else {
            return refuse(
                400, "invalid_grant",
                "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
                    + "Check your iat and exp values in the JWT claim.",
                email: email)
        }
        let scopes = Set((decoded.claims["scope"]?.stringValue ?? "").split(separator: " ").map(String.init))
        guard !scopes.isEmpty else {
            return refuse(400, "invalid_scope", "Empty or missing scope not allowed.", email: email)
        }
        let accessToken = tokens.issue(for: account.account, scopes: scopes, lifetime: lifetime, now: now)
        let body = JSONValue.object([
            "access_token": .string(accessToken), "expires_in": .number(Double(lifetime)),
            "token_type": .string("Bearer"),
        ]).encoded()
        return EndpointAnswer(
            response: EndpointAnswer.json(
                200, body, extraHeaders: [(name: "cache-control", value: "no-cache, no-store")]),
            auth: .assertion(clientEmail: email))
    }

    private func refuse(_ status: Int, _ error: String, _ description: String, email: String? = nil) -> EndpointAnswer {
        EndpointAnswer(
            response: EndpointAnswer.json(status, GoogleErrorBody.oauthError(error, description: description)),
            auth: email.map { .refused(detail: "assertion of \($0): \(description)") } ?? .refused(detail: description),
            reason: error)
    }
}
