import Foundation

/// Gathers `count` results that arrive on other threads in any order, and hands them back in
/// index order: to the one thread that waits for them, or to `whenComplete`.
/// `@unchecked Sendable`: `results` and `missing` are only touched while `condition` is locked.
final class OrderedCollector<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var results: [Element?]
    private var missing: Int
    private let whenComplete: (([Element]) -> Void)?

    /// - Parameter whenComplete: given every result, on the thread that sets the last one;
    ///   without it, `wait()` hands them back.
    init(count: Int, whenComplete: (([Element]) -> Void)? = nil) {
        results = Array(repeating: nil, count: count)
        missing = count
        self.whenComplete = whenComplete
    }

    /// Each index must be set exactly once.
    func set(_ index: Int, _ element: Element) {
        condition.lock()
        precondition(results[index] == nil, "result \(index) set twice")
        results[index] = element
        missing -= 1
        let complete = missing == 0
        if complete { condition.broadcast() }
        condition.unlock()
        if complete, let whenComplete { whenComplete(results.map { $0! }) }
    }

    /// Blocks until every index is set.
    func wait() -> [Element] {
        condition.lock()
        while missing > 0 { condition.wait() }
        let all = results.map { $0! }
        condition.unlock()
        return all
    }
}
