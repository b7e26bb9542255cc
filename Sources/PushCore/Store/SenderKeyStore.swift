/// A key a sender (PBX script, backend) presents to the send-side endpoints, as operators see
/// it: never the key itself, which is shown once when it is made.
public struct SenderKey: Sendable, Equatable {
    public var name: String
    /// Unix seconds.
    public var createdAt: Int64
    /// Unix seconds; nil while the key is valid.
    public var revokedAt: Int64?
    /// What the key may reach.
    public var scope: SenderScope
    /// Whether the store keeps the key itself, which Beams tokens (HS256) are verified
    /// with: true for keys made since the store could, false for digest-only keys.
    public var verifiesBeamsTokens: Bool

    public init(
        name: String, createdAt: Int64, revokedAt: Int64?, scope: SenderScope = .unrestricted,
        verifiesBeamsTokens: Bool = false
    ) {
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.scope = scope
        self.verifiesBeamsTokens = verifiesBeamsTokens
    }
}

/// The sender keys, stored as digests only.
public protocol SenderKeyStore: Sendable {
    /// True while at least one key is valid (not revoked): the send-side endpoints then
    /// require one, and serve loopback callers without a key only when this is false.
    func hasValidSenderKeys() throws -> Bool
    /// True while at least one valid key is an operator key: the operator pages then require
    /// one, from loopback too.
    func hasValidOperatorKeys() throws -> Bool
    /// The valid key whose digest is `digest`, nil when none matches.
    func validSenderKey(digest: String) throws -> SenderKey?
    /// Stores a new key's digest and scope; a name already used (revoked or not) is an error.
    func addSenderKey(name: String, digest: String, scope: SenderScope) throws
    /// Every key, valid and revoked, by name.
    func senderKeys() throws -> [SenderKey]
    /// Revokes the key; false when no valid key has that name.
    func revokeSenderKey(name: String) throws -> Bool
}

extension SenderKeyStore {
    /// The name of the valid key whose digest is `digest`, nil when none matches.
    public func senderKeyName(digest: String) throws -> String? {
        try validSenderKey(digest: digest)?.name
    }

    /// A key that reaches every app and dialect, as keys did before scopes.
    public func addSenderKey(name: String, digest: String) throws {
        try addSenderKey(name: name, digest: digest, scope: .unrestricted)
    }
}

/// Refusals of the key store an operator must hear about.
public enum SenderKeyError: Error, Equatable, CustomStringConvertible {
    case duplicateName(String)

    public var description: String {
        switch self {
        case .duplicateName(let name):
            return "a sender key named \(name) already exists (names stay taken after revoking, so logs stay unambiguous)"
        }
    }
}
