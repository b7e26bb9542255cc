import Dispatch
import Foundation

/// Runs work later on one particular thread: the one that parked a request, whose handler (and
/// so whose database connection) the rest of that request's work needs.
public protocol HomeThread: Sendable {
    /// Runs `work` on the home thread, after what it is doing now. Callable from any thread.
    func resume(_ work: @escaping @Sendable () -> Void)

    /// Runs `work` on the home thread once `seconds` have passed, without holding it meanwhile.
    func resume(afterSeconds seconds: Double, _ work: @escaping @Sendable () -> Void)
}

extension HomeThread {
    public func resume(afterSeconds seconds: Double, _ work: @escaping @Sendable () -> Void) {
        guard seconds > 0 else { return resume(work) }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { resume(work) }
    }
}

/// An answer that comes later: the handler has started nothing yet, but what it will do waits
/// outside the process (APNs, FCM), and no thread should wait with it. Whoever answers the
/// request calls `start` on its own thread and gets on with other requests; the work calls
/// `answer` exactly once, on that same thread (its home), with the final response.
public struct ParkedResponse: Sendable {
    /// What the parked work waits on, in pushes: the lane bounds the sum, not only the count.
    public let weight: Int
    private let begin: @Sendable (_ home: any HomeThread, _ answer: @escaping @Sendable (Response) -> Void) -> Void

    public init(
        weight: Int,
        start: @escaping @Sendable (_ home: any HomeThread, _ answer: @escaping @Sendable (Response) -> Void) -> Void
    ) {
        self.weight = max(1, weight)
        begin = start
    }

    /// Starts the work; `answer` runs once, on `home`, maybe before this returns.
    public func start(home: any HomeThread, answer: @escaping @Sendable (Response) -> Void) {
        begin(home, answer)
    }

    /// The same work, its answer passed through `transform` (on the home thread) first.
    public func map(_ transform: @escaping @Sendable (Response) -> Response) -> ParkedResponse {
        let begin = self.begin
        return ParkedResponse(weight: weight) { home, answer in begin(home) { answer(transform($0)) } }
    }
}

extension Response {
    /// A response whose answer comes from `parked`; its status (202) is never sent.
    public static func parked(_ parked: ParkedResponse) -> Response {
        var response = Response(status: 202)
        response.parked = parked
        return response
    }

    /// This response, or for a parked one its answer, waited for on this thread, which is its
    /// home meanwhile: for callers without a lane (the responder threads, tests).
    public func settled() -> Response {
        guard let parked else { return self }
        let home = WaitingHome()
        parked.start(home: home) { home.finish($0) }
        return home.runUntilAnswered().settled()
    }
}

/// The calling thread as a home: it runs what is resumed to it until the answer comes.
private final class WaitingHome: HomeThread, @unchecked Sendable {
    // @unchecked: `work` and `answer` are touched under `condition`.
    private let condition = NSCondition()
    private var work: [@Sendable () -> Void] = []
    private var answer: Response?

    func resume(_ work: @escaping @Sendable () -> Void) {
        condition.lock()
        self.work.append(work)
        condition.signal()
        condition.unlock()
    }

    func finish(_ response: Response) {
        condition.lock()
        answer = response
        condition.signal()
        condition.unlock()
    }

    func runUntilAnswered() -> Response {
        condition.lock()
        while true {
            if let answer {
                condition.unlock()
                return answer
            }
            if work.isEmpty {
                condition.wait()
                continue
            }
            let next = work.removeFirst()
            condition.unlock()
            next()
            condition.lock()
        }
    }
}
