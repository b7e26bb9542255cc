import Foundation

/// Hands one value from another thread (a completion, a client thread) to the test, which
/// waits for it with a deadline.
public final class ResultBox<T>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `condition`.
    private let condition = NSCondition()
    private var stored: T?

    public init() {}

    public func set(_ newValue: T) {
        condition.lock()
        stored = newValue
        condition.broadcast()
        condition.unlock()
    }

    /// The value, once set; nil when `timeout` seconds pass first.
    public func wait(timeout: Double) -> T? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while stored == nil, condition.wait(until: deadline) {}
        return stored
    }

    /// The value if it is set already.
    public var value: T? {
        condition.lock()
        defer { condition.unlock() }
        return stored
    }
}
