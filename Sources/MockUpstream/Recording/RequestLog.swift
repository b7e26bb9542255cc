import Foundation
import Synchronization

/// The requests a mock received, thread-safe: the server appends from its event loops while a
/// test reads, clears and waits. Counters are always kept; the list only when `keepsRequests`
/// (a benchmark of a million requests needs counts, not a list), bodies only when `keepsBodies`.
public final class RequestLog: Sendable {
    private struct State {
        var requests: [RecordedRequest] = []
        var counters = MockCounters()
    }

    private let state = Mutex(State())
    public let keepsRequests: Bool
    public let keepsBodies: Bool

    init(_ configuration: some MockServerConfiguration) {
        keepsRequests = configuration.recordRequests
        keepsBodies = configuration.recordBodies
    }

    /// Counts the request and, when keeping requests, stores it with what the mock made of it
    /// (built only then, so a benchmark pays for no copies).
    func record(
        _ request: MockHTTPRequest, at now: Date, token: String?, auth: RecordedAuth = .none, outcome: RecordedOutcome
    ) {
        state.withLock { state in
            state.counters.count(outcome)
            guard keepsRequests else { return }
            state.requests.append(
                RecordedRequest(
                    sequence: state.counters.requests, receivedAt: now, connectionID: request.connection.id,
                    httpVersion: request.httpVersion, method: request.method, path: request.path,
                    headers: request.headers, body: keepsBodies ? request.body : nil, deviceToken: token, auth: auth,
                    outcome: outcome))
        }
    }

    /// Everything recorded so far, oldest first.
    public var requests: [RecordedRequest] {
        state.withLock { $0.requests }
    }

    /// Requests judged since start or the last `clear`, recorded or not.
    public var count: Int {
        state.withLock { $0.counters.requests }
    }

    public var counters: MockCounters {
        state.withLock { $0.counters }
    }

    /// Forgets the requests and zeroes the counters.
    public func clear() {
        state.withLock { $0 = State() }
    }

    /// Blocks until at least `count` requests have been judged, or `timeout` passes; true if
    /// they were. Polls every millisecond: simple, and fast enough for tests and benchmarks.
    @discardableResult
    public func waitForRequests(count: Int, timeout: Duration = .seconds(10)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while self.count < count {
            if ContinuousClock.now >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }
}
