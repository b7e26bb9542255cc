import PushCore

/// HTTP Basic against cospace users: the user name and its password, checked by the slow KDF
/// that App injects (PushAPI does no cryptography itself), after the `LoginThrottle` let the
/// attempt through: a refused one costs no hashing.
public struct CospaceAuthenticator: Sendable {
    /// The `WWW-Authenticate` value of a 401 (RFC 7617).
    public static let challenge = #"Basic realm="pushgate", charset="UTF-8""#

    /// A well-formed hash no password matches: checked for unknown users so that a wrong
    /// name costs as long as a wrong password and does not reveal which names exist.
    static let unknownUserHash =
        "pbkdf2-sha256$600000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

    private let users: any CospaceUserStore
    private let verify: @Sendable (_ user: String, _ password: String, _ storedHash: String) -> Bool
    private let throttle: LoginThrottle

    /// - Parameter throttle: shared by every thread of the process, so that its counts are
    ///   the process's.
    public init(
        users: any CospaceUserStore, throttle: LoginThrottle = LoginThrottle(),
        verify: @escaping @Sendable (_ user: String, _ password: String, _ storedHash: String) -> Bool
    ) {
        self.users = users
        self.throttle = throttle
        self.verify = verify
    }

    /// True when `request` carries a login the throttle would let through now: only those
    /// need the password lane; the rest are answered at once (401 or 429) without hashing.
    func wouldCheckPassword(_ request: Request) -> Bool {
        guard case .basic(let name, _)? = request.authorization else { return false }
        return !throttle.refuses(address: request.remoteAddress, user: name)
    }

    /// The authenticated user, or why not.
    func authenticate(_ request: Request) throws -> CospaceUser {
        guard case .basic(let name, let password)? = request.authorization else {
            throw CospaceError.unauthorized(challenge: Self.challenge)
        }
        let attempt: LoginThrottle.Attempt
        switch throttle.begin(address: request.remoteAddress, user: name) {
        case .refused(let seconds): throw CospaceError.tooManyLogins(retryAfterSeconds: seconds)
        case .allowed(let allowed): attempt = allowed
        }
        let user: CospaceUser?
        do {
            user = try users.user(named: name)
        } catch {
            throttle.cancelled(attempt)  // the store's fault, not a failed login
            throw error
        }
        guard let user else {
            _ = verify(name, password, Self.unknownUserHash)
            throw CospaceError.unauthorized(challenge: Self.challenge)
        }
        guard verify(name, password, user.passwordHash) else {
            throw CospaceError.unauthorized(challenge: Self.challenge)
        }
        throttle.succeeded(attempt)
        return user
    }
}
