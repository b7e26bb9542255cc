import PushCore

/// Who may call the send-side endpoints (pnm2, publishes, events): with any valid sender key
/// stored, a request must present one (`Authorization: Bearer KEY`, or HTTP Basic with the
/// key as password, for PBX scripts that can only put credentials in a URL); with none, only
/// loopback callers are served, so a fresh install is not an open relay. `SenderOnly` asks it
/// before every send-side handler; each dialect renders a refusal in its own error shape.
public struct SenderAuthorization: Sendable {
    public enum Decision: Sendable, Equatable {
        /// The key used and its scope, or `Sender.loopback`.
        case allowed(Sender)
        /// 401: no key, or not a valid one. `reason` is safe to show the caller.
        case unauthorized(reason: String)
        /// 403: no keys exist and the caller is not on this machine.
        case forbidden(reason: String)
        /// The key store could not be read: the endpoint's failure, a 500 (a 503 when the
        /// error is `StoreUnavailable`; see `SenderOnly`).
        case unavailable(any Error)

        public static func == (lhs: Decision, rhs: Decision) -> Bool {
            switch (lhs, rhs) {
            case (.allowed(let a), .allowed(let b)): return a == b
            case (.unauthorized(let a), .unauthorized(let b)): return a == b
            case (.forbidden(let a), .forbidden(let b)): return a == b
            case (.unavailable, .unavailable): return true
            default: return false
            }
        }

        /// The HTTP status each dialect answers with.
        public var status: Int {
            switch self {
            case .allowed: return 200
            case .unauthorized: return 401
            case .forbidden: return 403
            case .unavailable: return 500
            }
        }
    }

    /// The `WWW-Authenticate` value of a 401: both schemes pushgate accepts.
    public static let challenge = #"Bearer realm="pushgate", Basic realm="pushgate""#

    /// How long the store's answer to "is any key valid?" is reused. A keyless loopback send
    /// would otherwise read the store for every push (a round trip on PostgreSQL; the cost on
    /// SQLite is in docs/performance.md); so the first key added, or the last one revoked, by
    /// `pushgate keys` (another process, maybe on another node) reaches a caller without a key
    /// at most this late. A presented key is looked up on every request: a revoked key is refused at once.
    public static let keyPresenceSeconds = 0.1

    private let keys: any SenderKeyStore
    private let digest: @Sendable (String) -> String
    private let now: @Sendable () -> Double
    /// The store's last answer to "is any key valid?", and `now` just before it was read.
    private let keyPresence = Locked<(anyValid: Bool, readAt: Double)?>(nil)

    /// - Parameters:
    ///   - digest: what the store keeps of a key (PushCrypto's `SenderKeyMaterial.digest`).
    ///   - now: seconds on a monotonic clock; injected so that tests step time.
    public init(
        keys: any SenderKeyStore, digest: @escaping @Sendable (String) -> String,
        now: @escaping @Sendable () -> Double = Monotonic.seconds
    ) {
        self.keys = keys
        self.digest = digest
        self.now = now
    }

    public func authorize(_ request: Request) -> Decision {
        do {
            // A presented key that is valid settles it: keys exist. Asked first, so that an
            // authorized send (nearly every one where keys are set) reads the store once, not
            // twice; on PostgreSQL each read is a round trip.
            let presented = Self.presentedKey(request)
            if let presented, let key = try keys.validSenderKey(digest: digest(presented)) {
                return .allowed(Sender(name: key.name, scope: key.scope))
            }
            guard try anyValidKey() else {
                if request.isFromLoopback { return .allowed(.loopback) }
                return .forbidden(
                    reason: "no sender keys are configured, so only this machine may send (pushgate keys add NAME)")
            }
            guard presented != nil else {
                return .unauthorized(reason: "a sender key is required (Authorization: Bearer KEY)")
            }
            return .unauthorized(reason: "the sender key is not valid")
        } catch {
            return .unavailable(error)
        }
    }

    private func anyValidKey() throws -> Bool {
        let time = now()
        if let last = keyPresence.withLock({ $0 }), time - last.readAt < Self.keyPresenceSeconds { return last.anyValid }
        let anyValid = try keys.hasValidSenderKeys()
        keyPresence.withLock { $0 = (anyValid, time) }
        return anyValid
    }

    /// The key of a Bearer header, or of Basic's password (its user when the password is
    /// empty: `curl -u KEY:` sends it that way).
    static func presentedKey(_ request: Request) -> String? {
        switch request.authorization {
        case .bearer(let key): return key
        case .basic(let user, let password): return password.isEmpty ? (user.isEmpty ? nil : user) : password
        case nil: return nil
        }
    }
}
