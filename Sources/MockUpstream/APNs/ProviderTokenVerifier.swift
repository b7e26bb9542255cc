import Foundation
import PushCrypto
import Synchronization

/// Judges `authorization: bearer <JWT>` provider tokens as APNs does: ES256 signature by a known
/// key (`kid`), `iss` its team, `iat` under an hour old, and a new token per key no more often
/// than the update interval. Each distinct token is verified once and the verdict cached: a
/// client reuses one token for thousands of requests, and ECDSA verification is the costliest
/// step of a request.
/// (developer.apple.com: "Establishing a token-based connection to APNs".)
final class ProviderTokenVerifier: Sendable {
    enum Verdict: Sendable, Equatable {
        case accepted(keyID: String)
        case refused(APNsReason, detail: String)
    }

    private struct RegisteredKey: Sendable {
        let teamID: String
        let publicKey: JWTPublicKey
    }

    /// What a token string is, once verified: its key and issue time, or why it is no good.
    private enum Checked: Sendable {
        case signed(keyID: String, issuedAt: Double)
        case invalid(String)
    }

    private struct State {
        var checked: [String: Checked] = [:]
        /// Tokens taken into use, each once; older ones stay usable until they expire.
        var adopted: Set<String> = []
        /// When each key's latest new token was taken into use.
        var lastAdoption: [String: Date] = [:]
        var distinctTokens: [String: Int] = [:]
        var refusedUpdates = 0
    }

    /// Bounds the caches against a client that mints a token per request.
    private static let cacheLimit = 10_000

    private let keys: [String: RegisteredKey]
    private let updateInterval: TimeInterval
    private let lifetime: TimeInterval
    private let state = Mutex(State())

    init(keys: [MockAPNsProviderKey], updateInterval: Duration, lifetime: Duration) throws {
        var registered: [String: RegisteredKey] = [:]
        for key in keys {
            let publicKey = try JWTPublicKey(pem: key.publicKeyPEM)
            guard publicKey.algorithm == .es256 else {
                throw CryptoError.wrongKeyType(found: "RSA", expected: "EC P-256 (APNs provider key \(key.keyID))")
            }
            registered[key.keyID] = RegisteredKey(teamID: key.teamID, publicKey: publicKey)
        }
        self.keys = registered
        self.updateInterval = updateInterval.timeInterval
        self.lifetime = lifetime.timeInterval
    }

    func verify(_ token: String, now: Date) -> Verdict {
        let cached = state.withLock { $0.checked[token] }
        let checked = cached ?? check(token)
        return state.withLock { state in
            if cached == nil {
                if state.checked.count >= Self.cacheLimit { state.checked.removeAll() }
                state.checked[token] = checked
            }
            switch checked {
            case .invalid(let detail):
                return .refused(.invalidProviderToken, detail: detail)
            case .signed(let keyID, let issuedAt):
                if now.timeIntervalSince1970 - issuedAt > lifetime {
                    return .refused(
                        .expiredProviderToken, detail: "iat \(Int(issuedAt)) is older than \(Int(lifetime)) s")
                }
                if state.adopted.contains(token) { return .accepted(keyID: keyID) }
                if let last = state.lastAdoption[keyID], now.timeIntervalSince(last) < updateInterval {
                    state.refusedUpdates += 1
                    return .refused(
                        .tooManyProviderTokenUpdates,
                        detail:
                            "new token for key \(keyID) \(Int(now.timeIntervalSince(last))) s after the previous one")
                }
                if state.adopted.count >= Self.cacheLimit { state.adopted.removeAll() }
                state.adopted.insert(token)
                state.lastAdoption[keyID] = now
                state.distinctTokens[keyID, default: 0] += 1
                return .accepted(keyID: keyID)
            }
        }
    }

    /// Distinct provider tokens taken into use, by key id.
    var distinctTokens: [String: Int] {
        state.withLock { $0.distinctTokens }
    }

    /// New tokens refused with `TooManyProviderTokenUpdates`.
    var refusedUpdates: Int {
        state.withLock { $0.refusedUpdates }
    }

    func reset() {
        state.withLock { $0 = State() }
    }

    private func check(_ token: String) -> Checked {
        guard let decoded = try? JWT.decode(token) else { return .invalid("not a JWT") }
        guard let keyID = decoded.header["kid"]?.stringValue else { return .invalid("no kid in the header") }
        guard let key = keys[keyID] else { return .invalid("unknown key id \(keyID)") }
        guard JWT.verify(token, with: key.publicKey) else { return .invalid("bad ES256 signature for key \(keyID)") }
        guard decoded.claims["iss"]?.stringValue == key.teamID else {
            return .invalid("iss is not team \(key.teamID)")
        }
        guard let issuedAt = decoded.claims["iat"]?.numberValue else { return .invalid("no iat claim") }
        return .signed(keyID: keyID, issuedAt: issuedAt)
    }
}

extension Duration {
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
