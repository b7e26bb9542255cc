/// A valid sender key that keeps its secret, with which a Beams token (an HS256 JWT the
/// server SDK signs with that key) is verified.
public struct BeamsTokenSecret: Sendable, Equatable {
    public var key: SenderKey
    public var secret: String

    public init(key: SenderKey, secret: String) {
        self.key = key
        self.secret = secret
    }
}

/// The sender keys whose secrets the store keeps: Beams tokens are HMACs, which a digest
/// cannot check.
public protocol BeamsTokenSecretStore: Sendable {
    /// Stores a new key's digest, scope and the key itself; a name already used is an error
    /// (`SenderKeyError.duplicateName`).
    func addSenderKey(name: String, digest: String, scope: SenderScope, secret: String) throws
    /// Every valid key that keeps its secret.
    func beamsTokenSecrets() throws -> [BeamsTokenSecret]
}
