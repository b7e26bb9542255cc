import PushCore

/// The most devices one app may have (`PUSHGATE_MAX_DEVICES_PER_APP`), an operator's ceiling
/// on what callers without a key can make an app's table grow to: past it a new device of the
/// app is refused (507 in the dialect's shape), while its stored devices report and register
/// as before. Off unless set.
///
/// The app's count is read from the store at most every `refreshSeconds` (one grouped count of
/// the devices table, only when a request would create a device), plus the devices this
/// process created since; several nodes each add their own, so together they may pass the
/// ceiling by what they create within one refresh.
public final class AppDeviceCeiling: Sendable {
    public let maximum: Int?
    public let refreshSeconds: Double
    private let counts: @Sendable () throws -> [String: Int]
    private let now: @Sendable () -> Double
    /// Each app's devices as last read, those created since, when they were read, and the new
    /// devices refused.
    private let state = Locked<(stored: [String: Int], createdSince: [String: Int], refreshedAt: Double?, refusals: Int)>(
        ([:], [:], nil, 0))

    /// - Parameters:
    ///   - maximum: devices per app; nil: no ceiling (nothing is ever read).
    ///   - counts: each app's stored devices (the store's `deviceCounts`).
    public init(
        maximum: Int?, refreshSeconds: Double = 10, counts: @escaping @Sendable () throws -> [String: Int],
        now: @escaping @Sendable () -> Double = Monotonic.seconds
    ) {
        self.maximum = maximum.map { max(1, $0) }
        self.refreshSeconds = refreshSeconds
        self.counts = counts
        self.now = now
    }

    /// No ceiling.
    public static var none: AppDeviceCeiling { AppDeviceCeiling(maximum: nil, counts: { [:] }) }

    /// Whether a new device of `app` fits under the ceiling (counts it refused when not).
    public func admits(_ app: AppID) throws -> Bool {
        guard let maximum else { return true }
        let time = now()
        return try state.withLock { state in
            if state.refreshedAt.map({ time - $0 >= refreshSeconds }) ?? true {
                state = (try counts(), [:], time, state.refusals)
            }
            let count = (state.stored[app.rawValue] ?? 0) + (state.createdSince[app.rawValue] ?? 0)
            if count < maximum { return true }
            state.refusals += 1
            return false
        }
    }

    /// A new device of `app` was stored.
    public func created(_ app: AppID) {
        guard maximum != nil else { return }
        state.withLock { $0.createdSince[app.rawValue, default: 0] += 1 }
    }

    /// New devices refused since the process started, for `/metrics`.
    public var refused: Int { state.withLock { $0.refusals } }

    /// Each app's devices as last read plus those created since (empty until a new device was
    /// asked for with a ceiling set), for `/metrics`.
    public var devices: [String: Int] { state.withLock { $0.stored.merging($0.createdSince, uniquingKeysWith: +) } }
}
