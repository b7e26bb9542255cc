import Foundation
import PushTesting

/// Requests posted each on a thread of its own, and their answers by name as they come: for
/// tests that fill a lane with sends a slow upstream holds, and look at what else is answered
/// meanwhile.
final class BackgroundSends: @unchecked Sendable {
    // @unchecked: `answers` is touched under `lock`.
    private let lock = NSLock()
    private var answers: [String: Result<HTTPClient.Response, any Error>] = [:]
    private let group = DispatchGroup()

    /// Posts `body` as JSON to `path`; its answer is kept under `token`.
    func post(_ client: HTTPClient, _ path: String, token: String, body: String, headers: [String: String] = [:]) {
        group.enter()
        Thread.detachNewThread { [self] in
            let result = Result { try client.post(path, contentType: "application/json", body: body, headers: headers) }
            lock.lock()
            answers[token] = result
            lock.unlock()
            group.leave()
        }
    }

    var returned: Int {
        lock.lock()
        defer { lock.unlock() }
        return answers.count
    }

    /// Every answer, once all have come (or a generous time-out passed).
    func all() -> [String: Result<HTTPClient.Response, any Error>] {
        _ = group.wait(timeout: .now() + 120)
        lock.lock()
        defer { lock.unlock() }
        return answers
    }
}

extension PushgateInstance {
    /// Polls `condition` until it holds; past `timeout` (generous: a bound, not a measure),
    /// fails with `what` and serve's log.
    func waitUntil(_ what: String, timeout: TimeInterval = 60, _ condition: () -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while !condition() {
            guard Date() < deadline else { throw Failure("timed out waiting until \(what):\n\(serveLog)") }
            usleep(20_000)
        }
    }
}
