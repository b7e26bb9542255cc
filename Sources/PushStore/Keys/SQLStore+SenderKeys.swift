import PushCore

// SenderKeyStore: the keys of the send-side endpoints.
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
        let now = clock()
        try write { database in
            if try SenderKeyTable.exists(name: name, in: database) { throw SenderKeyError.duplicateName(name) }
            try SenderKeyTable.insert(name: name, digest: digest, scope: scope, now: now, in: database)
        }
    }

    public func senderKeys() throws -> [SenderKey] {
        try withDatabase { try SenderKeyTable.all(in: $0) }
    }

    public func revokeSenderKey(name: String) throws -> Bool {
        let now = clock()
        return try write { try SenderKeyTable.revoke(name: name, now: now, in: $0) }
    }
}
