import Foundation
import Synchronization

/// The OAuth access tokens the mock issued, each bound to an account and an expiry; a test can
/// expire them on demand to drive a client's "401 → refresh once" path.
final class AccessTokenStore: Sendable {
    struct Grant: Sendable {
        let account: MockFCMServiceAccount
        /// The assertion's `scope`, split at spaces.
        let scopes: Set<String>
        var expiresAt: Date
    }

    enum Lookup {
        case valid(Grant)
        case expired
        case unknown
    }

    private struct State {
        var grants: [String: Grant] = [:]
        var issued = 0
    }

    private let state = Mutex(State())
    private let ids = UUIDSource()

    func issue(for account: MockFCMServiceAccount, scopes: Set<String>, lifetime: Int, now: Date) -> String {
        // Shaped like Google's ("ya29." + opaque), unique per issue.
        let token = "ya29.mock-" + ids.next()
        state.withLock {
            $0.grants[token] = Grant(
                account: account, scopes: scopes, expiresAt: now.addingTimeInterval(TimeInterval(lifetime)))
            $0.issued += 1
        }
        return token
    }

    func lookup(_ token: String, now: Date) -> Lookup {
        guard let grant = state.withLock({ $0.grants[token] }) else { return .unknown }
        return grant.expiresAt > now ? .valid(grant) : .expired
    }

    /// Makes every token issued so far expired.
    func expireAll() {
        let past = Date(timeIntervalSince1970: 0)
        state.withLock { state in
            for key in state.grants.keys { state.grants[key]?.expiresAt = past }
        }
    }

    var issuedCount: Int { state.withLock { $0.issued } }

    func reset() {
        state.withLock { $0 = State() }
    }
}
