/// The send-side dialects a sender key can be limited to, by the names `pushgate keys add
/// --dialect` takes.
public enum SenderDialect: String, Sendable, CaseIterable, Comparable {
    case pnm2
    case cospace
    case beams
    case bridge

    public static func < (lhs: SenderDialect, rhs: SenderDialect) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What one sender key may do: push to which apps, through which dialects, and whether it
/// opens the operator pages. A key made without `--app` (every key made before scopes
/// existed) reaches every app, one without `--dialect` every dialect; a key made with
/// `--operator` alone reaches none (`operatorOnly`): it reads the pages and sends nothing.
public struct SenderScope: Sendable, Equatable {
    /// nil: every app, also the ones registered later; empty: none.
    public var apps: Set<AppID>?
    /// nil: every dialect; empty: none.
    public var dialects: Set<SenderDialect>?
    /// May read `/metrics` and `/status`.
    public var isOperator: Bool

    public init(apps: Set<AppID>? = nil, dialects: Set<SenderDialect>? = nil, isOperator: Bool = false) {
        self.apps = apps
        self.dialects = dialects
        self.isOperator = isOperator
    }

    /// Every app and dialect, no operator pages: the keys made before scopes, and a loopback
    /// caller while no key exists.
    public static let unrestricted = SenderScope()

    /// `keys add NAME --operator` alone: the operator pages and nothing else. Every dialect
    /// refuses it, and it verifies no Beams token.
    public static let operatorOnly = SenderScope(apps: [], dialects: [], isOperator: true)

    /// False for a key that may push nowhere (an operator key made without `--app` or
    /// `--dialect`): `keys list` says it only reads.
    public var sends: Bool {
        apps?.isEmpty != true && dialects?.isEmpty != true
    }

    public func allows(_ app: AppID) -> Bool {
        apps?.contains(app) ?? true
    }

    public func allows(_ dialect: SenderDialect) -> Bool {
        dialects?.contains(dialect) ?? true
    }

    /// The apps of `candidates` this scope does not reach, in order, each once.
    public func outside(_ candidates: [AppID]) -> [AppID] {
        var seen = Set<AppID>()
        return candidates.filter { !allows($0) && seen.insert($0).inserted }
    }
}

/// Who is sending: the key's name (or "loopback") and what it may reach.
public struct Sender: Sendable, Equatable {
    public var name: String
    public var scope: SenderScope

    public init(name: String, scope: SenderScope) {
        self.name = name
        self.scope = scope
    }

    /// A caller on this machine while no key exists: unrestricted, as before keys had scopes.
    public static let loopback = Sender(name: "loopback", scope: .unrestricted)
}

/// What a fan-out (a topic, a user's devices) queued within a sender's scope, and how many
/// of its devices it left out because their app lies outside that scope.
public struct ScopedFanOut: Sendable, Equatable {
    public var queued: Int
    public var leftOut: Int

    public init(queued: Int, leftOut: Int) {
        self.queued = queued
        self.leftOut = leftOut
    }
}

/// The devices of a fan-out split by a sender's scope: those it may reach, and how many it
/// may not.
public struct ScopedDevices: Sendable, Equatable {
    public var inScope: [Int64]
    public var leftOut: Int

    public init(inScope: [Int64], leftOut: Int) {
        self.inScope = inScope
        self.leftOut = leftOut
    }
}
