import Foundation
import PushCore

/// Limits failed cospace logins per client address and per user name, so that guessing
/// passwords cannot burn the password hash's CPU: past the limit a login is refused before
/// any hashing. An attempt counts as a failure from the moment it is let through (so that
/// 200 logins arriving at once are not all let through before the first fails); its success
/// takes it back from its address and clears the user name's count.
///
/// The per-user count must not let an attacker lock a user out: an address that logged in as
/// that user before (within `Limits.knownAddressLifetimeSeconds`, a week by default) is exempt
/// from the user's count, only its own address count applies. Any other address waits at most
/// one window after the last counted failure.
///
/// Its own memory is bounded too: a user name is kept as a 16-byte digest however long the
/// name (nginx lets ~6 KB through), every entry goes once its window (or a known address's
/// lifetime) is over, swept once a window, and no table holds more than `Limits.capacity`.
public final class LoginThrottle: @unchecked Sendable {
    // @unchecked: every mutable field is touched only under `lock`.

    public struct Limits: Sendable, Equatable {
        /// Failed logins allowed per address and per user name within `windowSeconds`.
        public var failuresPerWindow: Int
        public var windowSeconds: Double
        /// How long a success exempts its address from its user name's count.
        public var knownAddressLifetimeSeconds: Double
        /// Addresses, user names and known pairs remembered at most (each); when full, the
        /// expired go, then (under a spray of distinct names from more addresses than this)
        /// all of them. Expired entries also go once a window, full or not.
        public var capacity: Int

        public init(
            failuresPerWindow: Int = 10, windowSeconds: Double = 60, knownAddressLifetimeSeconds: Double = 7 * 86_400,
            capacity: Int = 100_000
        ) {
            self.failuresPerWindow = max(1, failuresPerWindow)
            self.windowSeconds = max(1, windowSeconds)
            self.knownAddressLifetimeSeconds = max(0, knownAddressLifetimeSeconds)
            self.capacity = max(1, capacity)
        }
    }

    /// A login let through: hand it back to `succeeded` when the password was right.
    public struct Attempt: Sendable, Equatable {
        let address: ClientAddressKey
        let user: UserNameKey
    }

    /// A user name as the throttle keeps it: a 16-byte keyed digest, so that a 6 KB name
    /// costs what a short one does.
    public struct UserNameKey: Hashable, Sendable {
        let digest: KeyedDigest

        public init(_ name: String) {
            digest = KeyedDigest { $0.combine(name) }
        }
    }

    /// How many addresses, user names and known (user, address) pairs the throttle holds
    /// now: for tests and for watching its memory.
    public struct Remembered: Sendable, Equatable {
        public let addresses: Int
        public let users: Int
        public let knownAddresses: Int

        public init(addresses: Int, users: Int, knownAddresses: Int) {
            self.addresses = addresses
            self.users = users
            self.knownAddresses = knownAddresses
        }
    }

    public enum Decision: Sendable, Equatable {
        case allowed(Attempt)
        /// Refused without hashing; the caller may try again after this many seconds.
        case refused(retryAfterSeconds: Int)
    }

    public let limits: Limits
    private let now: @Sendable () -> Double
    private let lock = NSLock()
    /// Times of counted failures (and attempts under way), oldest first, at most the limit.
    private var byAddress: [ClientAddressKey: [Double]] = [:]
    private var byUser: [UserNameKey: [Double]] = [:]
    /// (user, address) pairs that logged in, and until when that exempts them.
    private var known: [Attempt: Double] = [:]
    /// When the tables are next swept of what expired.
    private var nextSweep: Double?

    /// - Parameter now: seconds on a monotonic clock; injected so that tests step time.
    public init(limits: Limits = Limits(), now: @escaping @Sendable () -> Double = LoginThrottle.monotonicSeconds) {
        self.limits = limits
        self.now = now
    }

    /// Seconds since boot, which no wall-clock change moves.
    public static let monotonicSeconds: @Sendable () -> Double = { ProcessInfo.processInfo.systemUptime }

    /// Lets the attempt through, counted as a failure until `succeeded`, or refuses it.
    public func begin(address: String, user: String) -> Decision {
        let address = ClientAddressKey(address)
        let user = UserNameKey(user)
        let time = now()
        lock.lock()
        defer { lock.unlock() }
        sweepIfDue(at: time)
        if let seconds = retryAfter(address: address, user: user, at: time) {
            return .refused(retryAfterSeconds: seconds)
        }
        makeRoom(at: time)
        byAddress[address, default: []].append(time)
        byUser[user, default: []].append(time)
        return .allowed(Attempt(address: address, user: user))
    }

    /// Would `begin` refuse now? Counts nothing: for deciding, from the request head alone,
    /// whether a login needs the password lane at all.
    public func refuses(address: String, user: String) -> Bool {
        let address = ClientAddressKey(address)
        let user = UserNameKey(user)
        let time = now()
        lock.lock()
        defer { lock.unlock() }
        return retryAfter(address: address, user: user, at: time) != nil
    }

    /// The password was right: the attempt is no failure of its address, the user name's
    /// count starts over, and this address is known for the user.
    public func succeeded(_ attempt: Attempt) {
        let time = now()
        lock.lock()
        defer { lock.unlock() }
        Self.dropLatest(&byAddress, attempt.address)
        byUser[attempt.user] = nil
        known[attempt] = time + limits.knownAddressLifetimeSeconds
    }

    /// The attempt was not decided (the store could not be read): it counts for nothing.
    public func cancelled(_ attempt: Attempt) {
        lock.lock()
        defer { lock.unlock() }
        Self.dropLatest(&byAddress, attempt.address)
        Self.dropLatest(&byUser, attempt.user)
    }

    /// Takes one attempt's time back from the key's count.
    /// What the throttle holds now.
    public var remembered: Remembered {
        lock.lock()
        defer { lock.unlock() }
        return Remembered(addresses: byAddress.count, users: byUser.count, knownAddresses: known.count)
    }

    private static func dropLatest<Key: Hashable>(_ table: inout [Key: [Double]], _ key: Key) {
        guard var times = table[key], !times.isEmpty else { return }
        times.removeLast()
        table[key] = times.isEmpty ? nil : times
    }

    /// Under the lock: seconds until the refusing count has room, nil when both have room.
    private func retryAfter(address: ClientAddressKey, user: UserNameKey, at time: Double) -> Int? {
        var wait: Double? = nil
        if let until = fullUntil(&byAddress, address, at: time) { wait = until - time }
        let exempt = known[Attempt(address: address, user: user)].map { time < $0 } ?? false
        if !exempt, let until = fullUntil(&byUser, user, at: time) { wait = max(wait ?? 0, until - time) }
        return wait.map { max(1, Int($0.rounded(.up))) }
    }

    /// Drops the key's expired times; when it still holds the limit, when its oldest expires.
    private func fullUntil<Key: Hashable>(_ table: inout [Key: [Double]], _ key: Key, at time: Double) -> Double? {
        guard var times = table[key] else { return nil }
        let start = time - limits.windowSeconds
        if let firstLive = times.firstIndex(where: { $0 > start }) {
            if firstLive > 0 { times.removeFirst(firstLive) }
        } else {
            times.removeAll()
        }
        table[key] = times.isEmpty ? nil : times
        guard times.count >= limits.failuresPerWindow else { return nil }
        return times[times.count - limits.failuresPerWindow] + limits.windowSeconds
    }

    /// Under the lock, once a window: drops every entry whose times all expired and every
    /// known address whose exemption ended, so that a flood of names is forgotten a window
    /// after it stops, however far it stayed below `capacity`.
    private func sweepIfDue(at time: Double) {
        if let nextSweep, time < nextSweep { return }
        nextSweep = time + limits.windowSeconds
        let start = time - limits.windowSeconds
        byAddress = byAddress.filter { $0.value.last.map { $0 > start } ?? false }
        byUser = byUser.filter { $0.value.last.map { $0 > start } ?? false }
        known = known.filter { time < $0.value }
    }

    /// Keeps each table within `capacity`: the expired go first, everything if that is not enough.
    private func makeRoom(at time: Double) {
        let start = time - limits.windowSeconds
        func trimmed<Key: Hashable>(_ table: [Key: [Double]]) -> [Key: [Double]] {
            guard table.count >= limits.capacity else { return table }
            let live = table.filter { $0.value.last.map { $0 > start } ?? false }
            return live.count >= limits.capacity ? [:] : live
        }
        byAddress = trimmed(byAddress)
        byUser = trimmed(byUser)
        if known.count >= limits.capacity {
            known = known.filter { time < $0.value }
            if known.count >= limits.capacity { known.removeAll() }
        }
    }
}

extension LoginThrottle.Attempt: Hashable {}
