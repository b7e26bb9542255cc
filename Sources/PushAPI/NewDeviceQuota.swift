import Foundation
import PushCore

/// How many new devices or clients one caller may create, counted per client address (IPv6 per
/// /64, an IPv4-mapped address as IPv4: `ClientAddressKey`) across every dialect that stores
/// for callers without a key: the Token Reporter, the Beams device and client APIs and the
/// bridge's `pnsub`. nginx's rate limit bounds requests, not what they store, and exempts
/// loopback; this holds behind any proxy set-up and from loopback too.
///
/// At most `Limits.perHour` in any hour: a charge is kept an hour, and a caller holding that
/// many is refused until its oldest is an hour old. Counted in this process's memory: a node
/// of several counts only what it answered (two nodes behind one nginx let an address create
/// up to twice the quota), and a restart forgets the counts.
///
/// A request that may create takes a `Charge` first (so that a refused one stores nothing),
/// and gives it back when the store says it created nothing (a re-registration).
public final class NewDeviceQuota: @unchecked Sendable {
    // @unchecked: every mutable field is touched only under `lock`.

    public struct Limits: Sendable, Equatable {
        /// New devices or clients an address may create in an hour; nil: no quota.
        public var perHour: Int?
        public var windowSeconds: Double
        /// Addresses remembered at most; when full, those whose charges all expired go, then
        /// (from more addresses than this within an hour) all of them.
        public var capacity: Int

        public init(perHour: Int? = NewDeviceQuota.defaultPerHour, windowSeconds: Double = 3600, capacity: Int = 100_000) {
            self.perHour = perHour.map { max(1, $0) }
            self.windowSeconds = max(1, windowSeconds)
            self.capacity = max(1, capacity)
        }
    }

    /// `PUSHGATE_NEW_DEVICES_PER_HOUR`'s default: a household or an office creates a few
    /// devices an hour; a script creating thousands gets 429 after these.
    public static let defaultPerHour = 60

    /// One new device's place in its address's count, taken before the store is written.
    public struct Charge: Sendable, Equatable {
        let address: ClientAddressKey
        let at: Double
    }

    public enum Decision: Sendable, Equatable {
        case allowed(Charge)
        /// Nothing may be created; the caller may try again after this many seconds.
        case refused(retryAfterSeconds: Int)
    }

    public let limits: Limits
    private let now: @Sendable () -> Double
    private let lock = NSLock()
    /// Per address, the times of its charges within the window, oldest first.
    private var charges: [ClientAddressKey: [Double]] = [:]
    private var nextSweep: Double?
    private var refusals = 0

    /// - Parameter now: seconds on a monotonic clock; injected so that tests step time.
    public init(limits: Limits = Limits(), now: @escaping @Sendable () -> Double = LoginThrottle.monotonicSeconds) {
        self.limits = limits
        self.now = now
    }

    /// No quota at all (`perHour` nil): every request may create.
    public static var unlimited: NewDeviceQuota { NewDeviceQuota(limits: Limits(perHour: nil)) }

    /// Takes one new device from the address's quota, or refuses.
    public func charge(address: String) -> Decision {
        let key = ClientAddressKey(address)
        let time = now()
        guard let perHour = limits.perHour else { return .allowed(Charge(address: key, at: time)) }
        lock.lock()
        defer { lock.unlock() }
        sweepIfDue(at: time)
        // Taken out of the table and put back, so that the array is changed in place.
        var times = charges.removeValue(forKey: key) ?? []
        dropExpired(&times, at: time)
        if times.count >= perHour {
            charges[key] = times
            refusals += 1
            let wait = times[times.count - perHour] + limits.windowSeconds - time
            return .refused(retryAfterSeconds: max(1, Int(wait.rounded(.up))))
        }
        if times.isEmpty, charges.count >= limits.capacity { makeRoom(at: time) }
        times.append(time)
        charges[key] = times
        return .allowed(Charge(address: key, at: time))
    }

    /// What a request that may create is let do.
    public enum Admission: Sendable, Equatable {
        /// Charged: give it back when the store created nothing.
        case charged(Charge)
        /// The address has none left, but the request's device is stored already: it goes
        /// through uncharged (a re-registration from an address past its quota).
        case stored
        case refused(retryAfterSeconds: Int)
    }

    /// Charges the address, unless it has none left: then `alreadyStored` is asked (a read of
    /// the store, made only for such addresses) whether the request's device exists.
    public func admit(address: String, alreadyStored: () throws -> Bool) throws -> Admission {
        if isSpent(address: address), try alreadyStored() { return .stored }
        switch charge(address: address) {
        case .allowed(let charge): return .charged(charge)
        case .refused(let seconds): return .refused(retryAfterSeconds: seconds)
        }
    }

    /// Whether the address has none left, counting nothing: for a caller that would look in
    /// the store first (whether its request creates at all) only when it matters.
    public func isSpent(address: String) -> Bool {
        guard let perHour = limits.perHour else { return false }
        let key = ClientAddressKey(address)
        let time = now()
        lock.lock()
        defer { lock.unlock() }
        guard let times = charges[key], times.count >= perHour else { return false }
        // Those within the window are the newest: count from the end.
        return times[times.count - perHour] > time - limits.windowSeconds
    }

    /// The request created nothing after all: its charge is taken back.
    public func giveBack(_ charge: Charge) {
        guard limits.perHour != nil else { return }
        lock.lock()
        defer { lock.unlock() }
        guard var times = charges.removeValue(forKey: charge.address) else { return }
        if let index = times.lastIndex(of: charge.at) { times.remove(at: index) }
        if !times.isEmpty { charges[charge.address] = times }
    }

    /// Requests refused since the process started, for `/metrics`.
    public var refused: Int {
        lock.lock()
        defer { lock.unlock() }
        return refusals
    }

    /// Addresses with a live charge now: for tests and for watching its memory.
    public var rememberedAddresses: Int {
        lock.lock()
        defer { lock.unlock() }
        return charges.count
    }

    /// Drops the times an hour old or older (the oldest, at the front).
    private func dropExpired(_ times: inout [Double], at time: Double) {
        let start = time - limits.windowSeconds
        let expired = times.prefix { $0 <= start }.count
        if expired > 0 { times.removeFirst(expired) }
    }

    /// Under the lock, once a window: every address whose charges all expired goes.
    private func sweepIfDue(at time: Double) {
        if let nextSweep, time < nextSweep { return }
        nextSweep = time + limits.windowSeconds / 4
        let start = time - limits.windowSeconds
        charges = charges.filter { $0.value.last.map { $0 > start } ?? false }
    }

    private func makeRoom(at time: Double) {
        let start = time - limits.windowSeconds
        charges = charges.filter { $0.value.last.map { $0 > start } ?? false }
        if charges.count >= limits.capacity { charges.removeAll() }
    }
}
