import Foundation
import PushDelivery

/// The transport of unit tests (STYLE 14, sygnal's `preload_with_response`): answers each
/// request from replies preloaded per URL fragment and records every request it was given.
/// Completions run on another thread, as the engine's do, after an optional delay.
/// `@unchecked Sendable`: `state` is only touched under `lock`.
public final class FakeTransport: HTTP2Transport, @unchecked Sendable {
    public init() {}
    public struct Reply: Sendable {
        public var outcome: UpstreamOutcome
        public var delaySeconds: Double = 0
    }

    private struct Rule {
        public var urlFragment: String
        /// Used in order; the last one repeats.
        public var replies: [Reply]
    }

    private let lock = NSLock()
    private var rules: [Rule] = []
    private var recorded: [UpstreamRequest] = []
    /// `holdReplies(untilRequests:)`: how many requests open the gate, and the replies waiting.
    private var gate: (count: Int, held: [@Sendable () -> Void])?
    private var gateOpenedByRequests = false

    /// Holds every reply back until `count` requests have been submitted, so that a caller
    /// that waits for each answer before sending the next never gets one; `timeout` seconds
    /// after this call the gate opens anyway (`openedByRequests` then says false).
    public func holdReplies(untilRequests count: Int, timeout: Double = 30) {
        lock.withLock { gate = (count, []) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { self.openGate(byRequests: false) }
    }

    /// Whether the gate of `holdReplies` opened because every request it waited for came.
    public var openedByRequests: Bool { lock.withLock { gateOpenedByRequests } }

    private func openGate(byRequests: Bool) {
        let held = lock.withLock { () -> [@Sendable () -> Void] in
            guard let open = gate else { return [] }
            gate = nil
            gateOpenedByRequests = byRequests
            return open.held
        }
        for reply in held { reply() }
    }

    /// Answers requests whose URL contains `urlFragment` ("" matches all; later rules win) with
    /// these replies in turn, the last one for every request after.
    public func preload(_ urlFragment: String, _ replies: Reply...) {
        lock.withLock { rules.insert(Rule(urlFragment: urlFragment, replies: replies), at: 0) }
    }

    /// As `preload(_:_:)` for every URL.
    public func preload(_ replies: Reply...) {
        lock.withLock { rules.insert(Rule(urlFragment: "", replies: replies), at: 0) }
    }

    public func preload(
        _ urlFragment: String = "", status: Int, headers: [HTTPHeader] = [], body: String = "", delaySeconds: Double = 0
    ) {
        let reply = Reply.response(status, headers: headers, body: body, delaySeconds: delaySeconds)
        lock.withLock { rules.insert(Rule(urlFragment: urlFragment, replies: [reply]), at: 0) }
    }

    public var requests: [UpstreamRequest] { lock.withLock { recorded } }

    public func requests(containing urlFragment: String) -> [UpstreamRequest] {
        requests.filter { $0.url.contains(urlFragment) }
    }

    public func submit(_ request: UpstreamRequest, completion: @escaping @Sendable (UpstreamOutcome) -> Void) {
        let reply = lock.withLock { () -> Reply in
            recorded.append(request)
            guard let index = rules.firstIndex(where: { $0.urlFragment.isEmpty || request.url.contains($0.urlFragment) }) else {
                return .response(599, body: "FakeTransport: nothing preloaded for \(request.url)")
            }
            let reply = rules[index].replies[0]
            if rules[index].replies.count > 1 { rules[index].replies.removeFirst() }
            return reply
        }
        let outcome = reply.outcome
        let answer: @Sendable () -> Void = {
            DispatchQueue.global().asyncAfter(deadline: .now() + reply.delaySeconds) { completion(outcome) }
        }
        let (held, complete) = lock.withLock { () -> (Bool, Bool) in
            guard gate != nil else { return (false, false) }
            gate!.held.append(answer)
            return (true, recorded.count >= gate!.count)
        }
        if complete { openGate(byRequests: true) }
        if !held { answer() }
    }
}

extension FakeTransport.Reply {
    public static func response(
        _ status: Int, headers: [HTTPHeader] = [], body: String = "", delaySeconds: Double = 0
    ) -> FakeTransport.Reply {
        FakeTransport.Reply(
            outcome: .success(UpstreamResponse(status: status, headers: headers, body: Array(body.utf8))),
            delaySeconds: delaySeconds)
    }

    public static func failure(_ error: TransportError) -> FakeTransport.Reply {
        FakeTransport.Reply(outcome: .failure(error))
    }
}
