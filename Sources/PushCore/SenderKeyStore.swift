/// A key a sender (PBX script, backend) presents to the send-side endpoints, as operators see
/// it: never the key itself, which is shown once when it is made.
public struct SenderKey: Sendable, Equatable {
    public var name: String
    /// Unix seconds.
    public var createdAt: Int64
    /// Unix seconds; nil while the key is valid.
    public var revokedAt: Int64?

    public init(name: String, createdAt: Int64, revokedAt: Int64?) {
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// The sender keys, stored as digests only.
public protocol SenderKeyStore: Sendable {
    /// True while at least one key is valid (not revoked): the send-side endpoints then
    /// require one, and serve loopback callers without a key only when this is false.
    func hasValidSenderKeys() throws -> Bool
    /// The name of the valid key whose digest is `digest`, nil when none matches.
    func senderKeyName(digest: String) throws -> String?
    /// Stores a new key's digest; a name already used (revoked or not) is an error.
    func addSenderKey(name: String, digest: String) throws
    /// Every key, valid and revoked, by name.
    func senderKeys() throws -> [SenderKey]
    /// Revokes the key; false when no valid key has that name.
    func revokeSenderKey(name: String) throws -> Bool
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
