/// The store cannot be reached for now: its server stopped, restarting or cut off, or (on
/// SQLite) another process held the write lock past the busy timeout. Nothing was changed by
/// the call that failed — or, for a commit cut off half-way, nothing was acknowledged — so the
/// caller may send the same request again later. Engine-neutral, so that handlers answer it
/// (503 with `Retry-After`, in their dialect's shape) without knowing which engine is behind.
public struct StoreUnavailable: Error, Sendable, CustomStringConvertible {
    /// What the engine said (libpq's or SQLite's message), for the operator's log.
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    /// The `Retry-After` seconds a 503 suggests: a restarting server is usually back within
    /// seconds, and a shorter hint would only turn callers' retries into a storm.
    public static let retryAfterSeconds = 5

    public var description: String { "the database is unavailable: \(reason)" }
}
