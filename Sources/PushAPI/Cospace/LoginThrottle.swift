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
/// lifetime) is over, and no table holds more than `Limits.capacity`. A full table never
/// forgets a user name's live failures, or a spray of other names would wipe the count of the
/// name being guessed: the address that failed longest ago and the oldest known address go
/// (in age order, O(1) each), but while every name held failed within the window a failure
/// under a new name is refused instead (429), except from an address the name logged in from.
public final class LoginThrottle: @unchecked Sendable {
    // @unchecked: every mutable field is touched only under `lock`.

    public struct Limits: Sendable, Equatable {
        /// Failed logins allowed per address and per user name within `windowSeconds`.
        public var failuresPerWindow: Int
        public var windowSeconds: Double
        /// How long a success exempts its address from its user name's count.
        public var knownAddressLifetimeSeconds: Double
        /// Addresses, user names and known pairs remembered at most (each). When full, the
        /// address quiet longest goes, and the known pair oldest; the names table drops only
        /// expired names and, while all it holds are live, refuses new ones.
        public var capacity: Int

        public init(
            failuresPerWindow: Int = 10, windowSeconds: Double = 60, knownAddressLifetimeSeconds: Double = 7 * 86_400,
            capacity: Int = LoginThrottle.defaultCapacity
        ) {
            self.failuresPerWindow = max(1, failuresPerWindow)
            self.windowSeconds = max(1, windowSeconds)
            self.knownAddressLifetimeSeconds = max(0, knownAddressLifetimeSeconds)
            self.capacity = max(1, capacity)
        }
    }

    /// `PUSHGATE_LOGIN_THROTTLE_CAPACITY`'s default: a few MB, and ten times the names a
    /// minute's failures from 10,000 /64s at the default limit could fill.
    public static let defaultCapacity = 100_000

    /// A login let through: hand it back to `succeeded` when the password was right.
    public struct Attempt: Sendable, Equatable {
        let address: ClientAddressKey
        let user: UserNameKey
        /// Whether the user name's count holds this attempt (not so for a known address's
        /// login while the names table is full of live names).
        let countedForUser: Bool
    }

    /// A user name and an address it logged in from.
    struct KnownPair: Hashable {
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
    private var byAddress: WindowCounts<ClientAddressKey>
    private var byUser: WindowCounts<UserNameKey>
    /// (user, address) pairs that logged in, at the time of their latest success: exempt
    /// while that is within the known-address lifetime.
    private var known: WindowCounts<KnownPair>

    /// - Parameter now: seconds on a monotonic clock; injected so that tests step time.
    public init(limits: Limits = Limits(), now: @escaping @Sendable () -> Double = Monotonic.seconds) {
        self.limits = limits
        self.now = now
        byAddress = WindowCounts(windowSeconds: limits.windowSeconds, capacity: limits.capacity)
        byUser = WindowCounts(windowSeconds: limits.windowSeconds, capacity: limits.capacity)
        known = WindowCounts(windowSeconds: limits.knownAddressLifetimeSeconds, capacity: limits.capacity)
    }

    /// Lets the attempt through, counted as a failure until `succeeded`, or refuses it.
    public func begin(address: String, user: String) -> Decision {
        let address = ClientAddressKey(address)
        let user = UserNameKey(user)
        let time = now()
        return lock.withLock {
            switch decide(address: address, user: user, at: time) {
            case .refused(let seconds):
                return .refused(retryAfterSeconds: seconds)
            case .counted(let countedForUser):
                byAddress.record(address, at: time)
                if countedForUser { byUser.record(user, at: time) }
                return .allowed(Attempt(address: address, user: user, countedForUser: countedForUser))
            }
        }
    }

    /// Would `begin` refuse now? Counts nothing: for deciding, from the request head alone,
    /// whether a login needs the password lane at all.
    public func refuses(address: String, user: String) -> Bool {
        let address = ClientAddressKey(address)
        let user = UserNameKey(user)
        let time = now()
        return lock.withLock {
            if case .refused = decide(address: address, user: user, at: time) { true } else { false }
        }
    }

    /// The password was right: the attempt is no failure of its address, the user name's
    /// count starts over, and this address is known for the user.
    public func succeeded(_ attempt: Attempt) {
        let time = now()
        lock.withLock {
            byAddress.removeLatest(of: attempt.address)
            byUser.remove(attempt.user)
            let pair = KnownPair(address: attempt.address, user: attempt.user)
            // One time per pair: its latest success.
            known.remove(pair)
            known.record(pair, at: time)
        }
    }

    /// The attempt was not decided (the store could not be read): it counts for nothing.
    public func cancelled(_ attempt: Attempt) {
        lock.withLock {
            byAddress.removeLatest(of: attempt.address)
            if attempt.countedForUser { byUser.removeLatest(of: attempt.user) }
        }
    }

    /// What the throttle holds now.
    public var remembered: Remembered {
        lock.withLock { Remembered(addresses: byAddress.count, users: byUser.count, knownAddresses: known.count) }
    }

    private enum Verdict {
        case refused(Int)
        /// Let through; counted for the user name too unless `false`.
        case counted(forUser: Bool)
    }

    /// Under the lock: what expired goes (from the tables' fronts, costing what expired), then
    /// whether either count is full, then whether the names table has room for this name.
    private func decide(address: ClientAddressKey, user: UserNameKey, at time: Double) -> Verdict {
        byAddress.forgetExpired(at: time)
        byUser.forgetExpired(at: time)
        known.forgetExpired(at: time)
        let exempt = !known.live(KnownPair(address: address, user: user), at: time).isEmpty
        var wait: Double? = nil
        if let until = byAddress.fullUntil(address, limit: limits.failuresPerWindow, at: time) { wait = until - time }
        if !exempt, let until = byUser.fullUntil(user, limit: limits.failuresPerWindow, at: time) {
            wait = max(wait ?? 0, until - time)
        }
        if let wait { return .refused(Self.seconds(wait)) }
        if byUser.contains(user) || byUser.count < limits.capacity { return .counted(forUser: true) }
        // Every name held failed within the window (the expired went above): forgetting one
        // would hand its guesser a fresh count, so a new name waits for the oldest to expire.
        // The name's own known address still logs in, counted per address alone.
        if exempt { return .counted(forUser: false) }
        let oldest = byUser.oldest()?.at ?? time
        return .refused(Self.seconds(oldest + limits.windowSeconds - time))
    }

    private static func seconds(_ wait: Double) -> Int { max(1, Int(wait.rounded(.up))) }
}
