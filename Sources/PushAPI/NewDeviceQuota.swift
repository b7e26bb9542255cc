import Foundation
import PushCore

/// How many new devices or clients one caller may create, counted per client address (IPv6 per
/// /64, an IPv4-mapped address as IPv4: `ClientAddressKey`) across every dialect that stores
/// for callers without a key: the Token Reporter, the Beams device and client APIs and the
/// bridge's `pnsub`. nginx's rate limit bounds requests, not what they store, and exempts
/// loopback; this holds behind any proxy set-up and from loopback too.
///
/// At most `Limits.perHour` in any hour: a charge is kept an hour, and a caller holding that
/// many is refused until its oldest is an hour old. An IPv6 caller is counted in its /56 and
/// its /48 too, each with a larger ceiling of its own, since one subscriber or tunnel broker
/// hands out 256 to 65,536 /64s: a /48 creates at most `perHourPer48` an hour, whichever of
/// its /64s ask. Counted in this process's memory: a node
/// of several counts only what it answered (two nodes behind one nginx let an address create
/// up to twice the quota), and a restart forgets the counts.
///
/// A request that may create takes a `Charge` first (so that a refused one stores nothing),
/// and gives it back when the store says it created nothing (a re-registration).
public final class NewDeviceQuota: @unchecked Sendable {
    // @unchecked: every mutable field is touched only under `lock`.

    public struct Limits: Sendable, Equatable {
        /// New devices or clients an address (IPv4) or an IPv6 /64 may create in an hour; nil:
        /// no quota at all.
        public var perHour: Int?
        /// New devices all the /64s of one IPv6 /56, and of one /48, may create in an hour
        /// together; nil: that prefix is not counted. Never below the narrower prefix's
        /// ceiling: a /56 of one /64's worth would be a /64 quota under another name.
        public var perHourPer56: Int?
        public var perHourPer48: Int?
        public var windowSeconds: Double
        /// Keys remembered at most, in each of the three tables; when full, the key whose
        /// latest charge is oldest goes (the expired before any live one).
        public var capacity: Int

        public init(
            perHour: Int? = NewDeviceQuota.defaultPerHour, perHourPer56: Int? = NewDeviceQuota.defaultPerHourPer56,
            perHourPer48: Int? = NewDeviceQuota.defaultPerHourPer48, windowSeconds: Double = 3600,
            capacity: Int = 100_000
        ) {
            let perHour = perHour.map { max(1, $0) }
            let perHourPer56 = perHourPer56.map { max(perHour ?? 1, $0) }
            self.perHour = perHour
            self.perHourPer56 = perHourPer56
            self.perHourPer48 = perHourPer48.map { max(perHourPer56 ?? perHour ?? 1, $0) }
            self.windowSeconds = max(1, windowSeconds)
            self.capacity = max(1, capacity)
        }
    }

    /// `PUSHGATE_NEW_DEVICES_PER_HOUR`'s default: a household or an office creates a few
    /// devices an hour; a script creating thousands gets 429 after these.
    public static let defaultPerHour = 60
    /// `PUSHGATE_NEW_DEVICES_PER_HOUR_PER_56`'s default: a /56 is one home or small office
    /// (ISPs' usual delegation), a few networks' worth of phones.
    public static let defaultPerHourPer56 = 120
    /// `PUSHGATE_NEW_DEVICES_PER_HOUR_PER_48`'s default: a /48 is one site or one tunnel
    /// broker's free allocation; 65,536 /64s must not mean 65,536 quotas.
    public static let defaultPerHourPer48 = 240

    /// One new device's place in its address's counts, taken before the store is written.
    public struct Charge: Sendable, Equatable {
        let address: ClientAddressKey
        let at: Double
    }

    public let limits: Limits
    private let now: @Sendable () -> Double
    private let lock = NSLock()
    /// Charges within the window per address (IPv6: per /64), per IPv6 /56 and per /48.
    private var byAddress: WindowCounts<ClientAddressKey>
    private var by56: WindowCounts<UInt64>
    private var by48: WindowCounts<UInt64>
    private var refusals = 0

    /// - Parameter now: seconds on a monotonic clock; injected so that tests step time.
    public init(limits: Limits = Limits(), now: @escaping @Sendable () -> Double = Monotonic.seconds) {
        self.limits = limits
        self.now = now
        byAddress = WindowCounts(windowSeconds: limits.windowSeconds, capacity: limits.capacity)
        by56 = WindowCounts(windowSeconds: limits.windowSeconds, capacity: limits.capacity)
        by48 = WindowCounts(windowSeconds: limits.windowSeconds, capacity: limits.capacity)
    }

    /// No quota at all (`perHour` nil): every request may create.
    public static var unlimited: NewDeviceQuota { NewDeviceQuota(limits: Limits(perHour: nil)) }

    /// Takes one new device from the address's quota (and its /56's and /48's), or refuses.
    public func charge(address: String) -> Admission {
        let key = ClientAddressKey(address)
        let time = now()
        guard limits.perHour != nil else { return .charged(Charge(address: key, at: time)) }
        return lock.withLock {
            forgetExpired(at: time)
            if let until = fullUntil(key, at: time) {
                refusals += 1
                return .refused(retryAfterSeconds: max(1, Int((until - time).rounded(.up))))
            }
            byAddress.record(key, at: time)
            if limits.perHourPer56 != nil, let network = key.ipv6Prefix(bits: 56) { by56.record(network, at: time) }
            if limits.perHourPer48 != nil, let network = key.ipv6Prefix(bits: 48) { by48.record(network, at: time) }
            return .charged(Charge(address: key, at: time))
        }
    }

    /// What a request that may create is let do.
    public enum Admission: Sendable, Equatable {
        /// Charged: give it back when the store created nothing.
        case charged(Charge)
        /// The address has none left, but the request's device is stored already: it goes
        /// through uncharged (a re-registration from an address past its quota).
        case stored
        /// Nothing may be created; the caller may try again after this many seconds.
        case refused(retryAfterSeconds: Int)
    }

    /// Charges the address, unless it has none left: then `alreadyStored` is asked (a read of
    /// the store, made only for such addresses) whether the request's device exists.
    public func admit(address: String, alreadyStored: () throws -> Bool) throws -> Admission {
        if isSpent(address: address), try alreadyStored() { return .stored }
        return charge(address: address)
    }

    /// Whether the address has none left, counting nothing: for a caller that would look in
    /// the store first (whether its request creates at all) only when it matters.
    public func isSpent(address: String) -> Bool {
        guard limits.perHour != nil else { return false }
        let key = ClientAddressKey(address)
        let time = now()
        return lock.withLock { fullUntil(key, at: time) != nil }
    }

    /// The request created nothing after all: its charge is taken back.
    public func giveBack(_ charge: Charge) {
        guard limits.perHour != nil else { return }
        lock.withLock {
            byAddress.remove(charge.at, of: charge.address)
            if let network = charge.address.ipv6Prefix(bits: 56) { by56.remove(charge.at, of: network) }
            if let network = charge.address.ipv6Prefix(bits: 48) { by48.remove(charge.at, of: network) }
        }
    }

    /// Requests refused since the process started, for `/metrics`.
    public var refused: Int { lock.withLock { refusals } }

    /// Addresses (IPv6: /64s) with a live charge now: for tests and for watching its memory.
    public var rememberedAddresses: Int { lock.withLock { byAddress.count } }

    /// IPv6 /56s and /48s with a live charge now.
    public var rememberedNetworks: (per56: Int, per48: Int) { lock.withLock { (by56.count, by48.count) } }

    /// Under the lock: when the first of the key's full counts has room again, nil when all
    /// have room. An IPv4 caller has one count; an IPv6 caller three (/64, /56, /48).
    private func fullUntil(_ key: ClientAddressKey, at time: Double) -> Double? {
        guard let perHour = limits.perHour else { return nil }
        var until = byAddress.fullUntil(key, limit: perHour, at: time)
        if let limit = limits.perHourPer56, let network = key.ipv6Prefix(bits: 56),
            let full = by56.fullUntil(network, limit: limit, at: time)
        {
            until = max(until ?? full, full)
        }
        if let limit = limits.perHourPer48, let network = key.ipv6Prefix(bits: 48),
            let full = by48.fullUntil(network, limit: limit, at: time)
        {
            until = max(until ?? full, full)
        }
        return until
    }

    /// Under the lock: what expired goes, at the cost of what expired.
    private func forgetExpired(at time: Double) {
        byAddress.forgetExpired(at: time)
        by56.forgetExpired(at: time)
        by48.forgetExpired(at: time)
    }
}
