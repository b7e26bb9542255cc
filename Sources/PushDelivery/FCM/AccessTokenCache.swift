import PushCore
import Foundation
import Logging
import PushCrypto

/// OAuth 2.0 access tokens for FCM, one per service account for the whole process: an RS256
/// assertion exchanged at the account's `token_uri` with the JWT-bearer grant, kept until
/// shortly before it expires. However many sends need a token at once, one refresh runs; the
/// others wait for its result.
/// (developers.google.com/identity/protocols/oauth2/service-account, "Preparing to make an
/// authorized API call".)
public final class AccessTokenCache: Sendable {
    private struct Entry {
        var token: String?
        /// When the token stops being handed out: shortly before it expires.
        var refreshAt = 0
        /// Non-nil while a refresh is running: everyone waiting for its result.
        var waiters: [@Sendable (Result<String, AccessTokenError>) -> Void]?
    }

    private let transport: HTTP2Transport
    private let clock: UnixClock
    private let refreshMarginSeconds: Int
    private let logger: Logger
    private let entries = Locked<[String: Entry]>([:])

    /// `refreshMarginSeconds`: a token this close to expiry is refreshed rather than used.
    public init(transport: HTTP2Transport, clock: UnixClock = .system, refreshMarginSeconds: Int = 300, logger: Logger) {
        self.transport = transport
        self.clock = clock
        self.refreshMarginSeconds = refreshMarginSeconds
        self.logger = logger
    }

    /// Calls `completion` with a valid access token: at once from the cache, or once a refresh
    /// (this caller's or one already running) has finished, on the transport's thread.
    public func accessToken(
        for account: ServiceAccount, completion: @escaping @Sendable (Result<String, AccessTokenError>) -> Void
    ) {
        let key = Self.key(account)
        let now = clock.now()
        enum Next { case use(String), wait, refresh }
        let next = entries.withLock { entries -> Next in
            var entry = entries[key] ?? Entry()
            defer { entries[key] = entry }
            if let token = entry.token, now < entry.refreshAt { return .use(token) }
            if entry.waiters != nil {
                entry.waiters!.append(completion)
                return .wait
            }
            entry.waiters = [completion]
            return .refresh
        }
        switch next {
        case .use(let token): completion(.success(token))
        case .wait: break
        case .refresh: refresh(account, key: key, now: now)
        }
    }

    /// Forgets `token` after FCM refused it (401), unless a newer one has replaced it already.
    public func invalidate(_ token: String, for account: ServiceAccount) {
        entries.withLock { entries in
            if entries[Self.key(account)]?.token == token { entries[Self.key(account)]?.token = nil }
        }
    }

    private func refresh(_ account: ServiceAccount, key: String, now: Int) {
        let assertion: String
        do {
            assertion = try account.assertion(scope: ServiceAccount.firebaseMessagingScope, issuedAt: now)
        } catch {
            return finish(key, .failure(.signing(error.description)))
        }
        let request = UpstreamRequest(
            method: "POST", url: account.tokenURI,
            headers: [HTTPHeader("content-type", "application/x-www-form-urlencoded")],
            body: Array(("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + assertion).utf8))
        transport.submit(request) { [self] outcome in
            let result = OAuthTokenReply.interpret(outcome, now: clock.now())
            if case .failure(let error) = result {
                logger.warning("OAuth access token refresh failed", metadata: ["account": "\(account)", "error": "\(error)"])
            }
            // A token granted for less than twice the margin is used for half its life instead.
            finish(key, result.map { ($0.token, clock.now() + max($0.expiresIn - refreshMarginSeconds, $0.expiresIn / 2)) })
        }
    }

    private func finish(_ key: String, _ result: Result<(token: String, refreshAt: Int), AccessTokenError>) {
        let waiters = entries.withLock { entries -> [@Sendable (Result<String, AccessTokenError>) -> Void] in
            var entry = entries[key] ?? Entry()
            defer { entries[key] = entry }
            if case .success(let fresh) = result {
                entry.token = fresh.token
                entry.refreshAt = fresh.refreshAt
            }
            let waiting = entry.waiters ?? []
            entry.waiters = nil
            return waiting
        }
        let answer = result.map(\.token)
        for waiter in waiters { waiter(answer) }
    }

    /// An account by the fields that decide its tokens; a replaced key file (new key id) refreshes.
    private static func key(_ account: ServiceAccount) -> String {
        "\(account.clientEmail)\u{0}\(account.tokenURI)\u{0}\(account.privateKeyID ?? "")"
    }
}

/// Why no access token could be had.
public enum AccessTokenError: Error, Equatable, CustomStringConvertible {
    /// The token endpoint refused the assertion (`invalid_grant`, `invalid_client`, …): the
    /// service account is wrong, disabled or its key revoked.
    case refused(status: Int, reason: String)
    /// The token endpoint failed or could not be reached: worth trying again later.
    case unavailable(reason: String, retryAfter: Int?)
    /// The assertion could not be signed.
    case signing(String)

    public var description: String {
        switch self {
        case .refused(let status, let reason): return "OAuth token endpoint refused the service account (\(status)): \(reason)"
        case .unavailable(let reason, _): return "OAuth token endpoint unavailable: \(reason)"
        case .signing(let reason): return "signing the OAuth assertion failed: \(reason)"
        }
    }
}
