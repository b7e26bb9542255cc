import Foundation
import PushCore

/// Sender keys by digest, for handler tests that go through `SenderAuthorization`. Revoking
/// removes a key; `failing` makes every read throw, as an unreadable store would.
public final class InMemorySenderKeys: SenderKeyStore, @unchecked Sendable {
    public struct Unavailable: Error {}

    // @unchecked: every field is read and written under `lock`.
    private let lock = NSLock()
    private var keys: [String: SenderKey] = [:]
    private var failingReads = false
    private var readCount = 0

    public init() {}

    /// Name by digest; setting it replaces every key with unrestricted ones.
    public var valid: [String: String] {
        get { lock.withLock { keys.mapValues(\.name) } }
        set { lock.withLock { keys = newValue.mapValues { SenderKey(name: $0, createdAt: 0, revokedAt: nil) } } }
    }

    /// Reads of the keys so far (each a store read, on PostgreSQL a round trip).
    public var reads: Int { lock.withLock { readCount } }

    public var failing: Bool {
        get { lock.withLock { failingReads } }
        set { lock.withLock { failingReads = newValue } }
    }

    public func hasValidSenderKeys() throws -> Bool {
        try read { !keys.isEmpty }
    }

    public func hasValidOperatorKeys() throws -> Bool {
        try read { keys.values.contains { $0.scope.isOperator } }
    }

    public func validSenderKey(digest: String) throws -> SenderKey? {
        try read { keys[digest] }
    }

    public func addSenderKey(name: String, digest: String, scope: SenderScope) throws {
        lock.withLock { keys[digest] = SenderKey(name: name, createdAt: 0, revokedAt: nil, scope: scope) }
    }

    public func senderKeys() throws -> [SenderKey] {
        lock.withLock { keys.values.sorted { $0.name < $1.name } }
    }

    public func revokeSenderKey(name: String) throws -> Bool {
        lock.withLock {
            guard let digest = keys.first(where: { $0.value.name == name })?.key else { return false }
            keys[digest] = nil
            return true
        }
    }

    private func read<T>(_ body: () -> T) throws -> T {
        try lock.withLock {
            readCount += 1
            if failingReads { throw Unavailable() }
            return body()
        }
    }
}
