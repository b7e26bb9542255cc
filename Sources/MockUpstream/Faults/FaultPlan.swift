import Synchronization

/// The faults waiting to be injected: a queue for "the next N requests", and per device token
/// "the next N requests to this token" (or all of them). Token faults win over queued ones.
final class FaultPlan: Sendable {
    private struct Entry {
        var fault: MockFault
        /// Nil: forever (token faults only).
        var remaining: Int?
    }

    private struct State {
        var queue: [Entry] = []
        var byToken: [String: Entry] = [:]
        var isEmpty: Bool { queue.isEmpty && byToken.isEmpty }
    }

    private let state = Mutex(State())

    func inject(_ fault: MockFault, forNext count: Int) {
        guard count > 0 else { return }
        state.withLock { $0.queue.append(Entry(fault: fault, remaining: count)) }
    }

    func inject(_ fault: MockFault, forToken token: String, times: Int?) {
        state.withLock { $0.byToken[token] = Entry(fault: fault, remaining: times) }
    }

    func clear() {
        state.withLock { $0 = State() }
    }

    /// The fault for this request, if any, used up by one.
    func take(token: String?) -> MockFault? {
        state.withLock { state in
            if state.isEmpty { return nil }
            if let token, var entry = state.byToken[token] {
                if let remaining = entry.remaining {
                    entry.remaining = remaining - 1
                    state.byToken[token] = remaining > 1 ? entry : nil
                }
                return entry.fault
            }
            guard var first = state.queue.first else { return nil }
            let remaining = (first.remaining ?? 1) - 1
            if remaining > 0 {
                first.remaining = remaining
                state.queue[0] = first
            } else {
                state.queue.removeFirst()
            }
            return first.fault
        }
    }
}
