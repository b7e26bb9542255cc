import Synchronization

/// Numbers connections in accept order.
final class ConnectionCounter: Sendable {
    private let value = Mutex(0)

    func next() -> Int {
        value.withLock {
            $0 += 1
            return $0
        }
    }

    var count: Int { value.withLock { $0 } }
}
