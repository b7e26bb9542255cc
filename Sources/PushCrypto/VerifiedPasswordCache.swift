import Foundation

/// Remembers recent successful password checks, so that a phone polling `/api/push` does not
/// cost a 600,000-round PBKDF2 (slow by design, a large part of a core-second) per request.
/// An entry is keyed by the SHA-256 of user, password and stored hash: a changed password or
/// a new stored hash never matches an old entry, and the cache holds no password. Failures
/// are never cached.
public final class VerifiedPasswordCache: @unchecked Sendable {
    // @unchecked: `entries` is only touched under `lock`.
    private let lock = NSLock()
    private var entries: [[UInt8]: ContinuousClock.Instant] = [:]
    private let lifetime: Duration
    private let capacity: Int
    private let verify: @Sendable (String, String) -> Bool

    /// - Parameters:
    ///   - lifetime: how long a success is trusted without running the KDF again.
    ///   - capacity: entries kept at most; when full, expired ones go, then all.
    ///   - verify: the slow check (`PasswordHash.verify`), replaceable in tests.
    public init(
        lifetime: Duration = .seconds(60), capacity: Int = 10_000,
        verify: @escaping @Sendable (String, String) -> Bool = { PasswordHash.verify(password: $0, against: $1) }
    ) {
        self.lifetime = lifetime
        self.capacity = capacity
        self.verify = verify
    }

    /// True when `password` is the password of `user` whose stored hash is `storedHash`.
    public func verify(user: String, password: String, storedHash: String) -> Bool {
        let key = SHA256.hash(Array("\(user)\u{0}\(password)\u{0}\(storedHash)".utf8))
        let now = ContinuousClock.now
        let known = lock.withLock { entries[key].map { now < $0 } ?? false }
        if known { return true }
        guard verify(password, storedHash) else { return false }
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= capacity {
            entries = entries.filter { now < $0.value }
            if entries.count >= capacity { entries.removeAll() }
        }
        entries[key] = now + lifetime
        return true
    }
}
