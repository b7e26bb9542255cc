import PushCore

// SenderKeyStore and BeamsTokenSecretStore: the keys of the send-side endpoints.
extension SQLStore {
    public func hasValidSenderKeys() throws -> Bool {
        try withDatabase { try SenderKeyTable.hasValidKeys(in: $0) }
    }

    public func hasValidOperatorKeys() throws -> Bool {
        try withDatabase { try SenderKeyTable.hasOperatorKeys(in: $0) }
    }

    public func validSenderKey(digest: String) throws -> SenderKey? {
        try withDatabase { try SenderKeyTable.key(digest: digest, in: $0) }
    }

    public func addSenderKey(name: String, digest: String, scope: SenderScope) throws {
        try addSenderKey(name: name, digest: digest, scope: scope, secret: nil)
    }

    public func addSenderKey(name: String, digest: String, scope: SenderScope, secret: String) throws {
        try addSenderKey(name: name, digest: digest, scope: scope, secret: Optional(secret))
    }

    private func addSenderKey(name: String, digest: String, scope: SenderScope, secret: String?) throws {
        let now = clock()
        try write { database in
            if try SenderKeyTable.exists(name: name, in: database) { throw SenderKeyError.duplicateName(name) }
            try SenderKeyTable.insert(name: name, digest: digest, scope: scope, secret: secret, now: now, in: database)
        }
    }

    public func beamsTokenSecrets() throws -> [BeamsTokenSecret] {
        try withDatabase { try SenderKeyTable.secrets(in: $0) }
    }

    public func senderKeys() throws -> [SenderKey] {
        try withDatabase { try SenderKeyTable.all(in: $0) }
    }

    public func revokeSenderKey(name: String) throws -> Bool {
        let now = clock()
        return try write { try SenderKeyTable.revoke(name: name, now: now, in: $0) }
    }
}
