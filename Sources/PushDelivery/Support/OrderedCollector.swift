import Foundation

/// Gathers `count` results that arrive on other threads in any order, and hands them back in
/// index order to the one thread that waits for them.
/// `@unchecked Sendable`: `results` and `missing` are only touched while `condition` is locked.
final class OrderedCollector<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var results: [Element?]
    private var missing: Int

    init(count: Int) {
        results = Array(repeating: nil, count: count)
        missing = count
    }

    /// Each index must be set exactly once.
    func set(_ index: Int, _ element: Element) {
        condition.lock()
        precondition(results[index] == nil, "result \(index) set twice")
        results[index] = element
        missing -= 1
        if missing == 0 { condition.broadcast() }
        condition.unlock()
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
