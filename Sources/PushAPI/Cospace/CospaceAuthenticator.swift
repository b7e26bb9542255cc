import PushCore

/// HTTP Basic against cospace users: the user name and its password, checked by the slow KDF
/// that App injects (PushAPI does no cryptography itself).
public struct CospaceAuthenticator: Sendable {
    /// The `WWW-Authenticate` value of a 401 (RFC 7617).
    public static let challenge = #"Basic realm="pushgate", charset="UTF-8""#

    /// A well-formed hash no password matches: checked for unknown users so that a wrong
    /// name costs as long as a wrong password and does not reveal which names exist.
    static let unknownUserHash =
        "pbkdf2-sha256$600000$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

    private let users: any CospaceUserStore
    private let verify: @Sendable (_ user: String, _ password: String, _ storedHash: String) -> Bool

    public init(
        users: any CospaceUserStore,
        verify: @escaping @Sendable (_ user: String, _ password: String, _ storedHash: String) -> Bool
    ) {
        self.users = users
        self.verify = verify
    }

    /// The authenticated user, or why not.
    func authenticate(_ request: Request) throws -> CospaceUser {
        guard case .basic(let name, let password)? = request.authorization else {
            throw CospaceError.unauthorized(challenge: Self.challenge)
        }
        guard let user = try users.user(named: name) else {
            _ = verify(name, password, Self.unknownUserHash)
            throw CospaceError.unauthorized(challenge: Self.challenge)
        }
        guard verify(name, password, user.passwordHash) else {
            throw CospaceError.unauthorized(challenge: Self.challenge)
        }
        return user
    }
}
