import Foundation
import PushCore

/// Sender keys by digest, for handler tests that go through `SenderAuthorization`. Revoking
/// removes a key; `failing` makes every read throw, as an unreadable store would.
public final class InMemorySenderKeys: SenderKeyStore, @unchecked Sendable {
    public struct Unavailable: Error {}

    // @unchecked: every field is read and written under `lock`.
    private let lock = NSLock()
    private var names: [String: String] = [:]
    private var failingReads = false

    public init() {}

    /// Name by digest; setting it replaces every key.
    public var valid: [String: String] {
        get { lock.withLock { names } }
        set { lock.withLock { names = newValue } }
    }

    public var failing: Bool {
        get { lock.withLock { failingReads } }
        set { lock.withLock { failingReads = newValue } }
    }

    public func hasValidSenderKeys() throws -> Bool {
        try lock.withLock {
            if failingReads { throw Unavailable() }
            return !names.isEmpty
        }
    }

    public func senderKeyName(digest: String) throws -> String? {
        try lock.withLock {
            if failingReads { throw Unavailable() }
            return names[digest]
        }
    }

    public func addSenderKey(name: String, digest: String) throws {
        lock.withLock { names[digest] = name }
    }

    public func senderKeys() throws -> [SenderKey] {
        lock.withLock { names.values.sorted().map { SenderKey(name: $0, createdAt: 0, revokedAt: nil) } }
    }

    public func revokeSenderKey(name: String) throws -> Bool {
        lock.withLock {
            guard let digest = names.first(where: { $0.value == name })?.key else { return false }
            names[digest] = nil
            return true
        }
    }
}
