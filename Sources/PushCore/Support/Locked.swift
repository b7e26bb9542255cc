import Foundation

/// A value behind a lock, for state that several threads read and write (the tests share it
/// too).
/// `@unchecked Sendable`: every access to `value` goes through `withLock`, under `lock`.
public final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
