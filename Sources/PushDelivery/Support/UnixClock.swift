import Foundation

/// Seconds since 1970, the unit of JWT `iat`/`exp` and of token lifetimes. Injected wherever
/// time decides something (token renewal), so that tests can move it.
public struct UnixClock: Sendable {
    public let now: @Sendable () -> Int

    public init(now: @escaping @Sendable () -> Int) {
        self.now = now
    }

    /// The system's wall clock.
    public static let system = UnixClock { Int(Date().timeIntervalSince1970) }
}
