import CoreMetrics
import Foundation
import PushAPI
import PushCore

/// Counts and times every request by the route it went to (`pushgate_requests_total
/// {endpoint, status}`, `pushgate_request_duration_seconds{endpoint}`), the threads busy
/// answering (`pushgate_busy_threads{lane}`) and the requests parked waiting on an upstream
/// (`pushgate_parked_requests{lane}`): the router of one responder or lane thread, measured.
/// The endpoint is the route's prefix, never the raw path.
///
/// On the hot path of every request: the metric objects are made once per endpoint (and
/// status) and kept, instead of asking the registry, whose one lock all threads share, three
/// times per request.
struct RequestMetrics: RequestHandler {
    static let durationLabel = "pushgate_request_duration_seconds"

    private let router: Router
    private let handles: Handles

    /// - Parameter thread: the kind of thread this router answers on (`responder`, or a lane's name).
    init(router: Router, factory: any MetricsFactory, thread: String) {
        self.router = router
        handles = Handles(factory: factory, thread: thread)
    }

    func route(_ head: inout Request) -> RequestLane? {
        router.route(&head)
    }

    func handle(_ request: Request) -> Response {
        guard let match = request.route else {
            // Driven without the edge (tests). Copied only here: a request is a dozen references.
            var routed = request
            _ = router.route(&routed)
            return handle(routed)
        }
        handles.busy.increment()
        defer { handles.busy.decrement() }
        let start = Monotonic.nanoseconds()
        let endpoint = handles.endpoint(match)
        var response = router.handle(request)
        if let parked = response.parked {
            // Counted when its answer comes: the status, and the time it was out. Under the
            // request's lane, which it is parked on even when a responder thread checked it.
            let gauge = handles.parked(lane: match.lane?.name)
            gauge.increment()
            response.parked = parked.map { [handles] answer in
                gauge.decrement()
                handles.record(endpoint, answer.status, nanoseconds: Monotonic.nanoseconds() &- start)
                return answer
            }
            return response
        }
        handles.record(endpoint, response.status, nanoseconds: Monotonic.nanoseconds() &- start)
        return response
    }

    func refuse(_ head: Request, _ refusal: EdgeRefusal) -> Response {
        let response = router.refuse(head, refusal)
        handles.record(handles.endpoint(head.route ?? .none), response.status, nanoseconds: nil)
        return response
    }

    /// The metric objects of one router, made on first use. Its own thread uses them for
    /// every request; `refuse` may come from another, hence the (uncontended) lock.
    private final class Handles: @unchecked Sendable {
        // @unchecked: `byEndpoint`, `byRoute`, `parkedByLane` and every `Endpoint`'s counters
        // are only touched under `lock`.
        let busy: Meter
        private let thread: String
        private let factory: any MetricsFactory
        private let lock = NSLock()
        private var byEndpoint: [String: Endpoint] = [:]
        /// The same objects by route index, the common lookup: an array read, where hashing the
        /// label cost more than the counting.
        private var byRoute: [Endpoint?] = []
        private var parkedByLane: [String: Meter] = [:]

        /// One endpoint's duration histogram and its counters by status (a handful: searched
        /// in order).
        final class Endpoint: @unchecked Sendable {
            // @unchecked: `counters` is guarded by the `Handles` lock (see above).
            let label: String
            /// Seconds, as a histogram of Doubles: every request is recorded, and
            /// swift-prometheus's `Duration` histogram compared each bucket through a call.
            let durations: any RecorderHandler
            var counters: [(status: Int, counter: Counter)] = []

            init(label: String, durations: any RecorderHandler) {
                self.label = label
                self.durations = durations
            }
        }

        init(factory: any MetricsFactory, thread: String) {
            self.factory = factory
            self.thread = thread
            busy = Meter(label: "pushgate_busy_threads", dimensions: [("lane", thread)], factory: factory)
            // Made now, so that /metrics shows this thread kind's gauge before anything parks.
            parkedByLane[thread] = Meter(
                label: "pushgate_parked_requests", dimensions: [("lane", thread)], factory: factory)
        }

        /// The parked gauge of `lane` (this thread's kind when the request has none).
        func parked(lane: String?) -> Meter {
            let lane = lane ?? thread
            lock.lock()
            defer { lock.unlock() }
            if let meter = parkedByLane[lane] { return meter }
            let meter = Meter(label: "pushgate_parked_requests", dimensions: [("lane", lane)], factory: factory)
            parkedByLane[lane] = meter
            return meter
        }

        /// The metrics of `match`'s endpoint label. A refused path's match names the route the
        /// caller meant but may carry another label, so only a routed match is kept by index.
        func endpoint(_ match: RouteMatch) -> Endpoint {
            lock.lock()
            defer { lock.unlock() }
            let index = match.pathRefusal == nil ? match.index : nil
            if let index, index < byRoute.count, let known = byRoute[index] { return known }
            let endpoint = byEndpoint[match.endpoint] ?? makeEndpoint(match.endpoint)
            if let index {
                if index >= byRoute.count { byRoute += Array(repeating: nil, count: index + 1 - byRoute.count) }
                byRoute[index] = endpoint
            }
            return endpoint
        }

        private func makeEndpoint(_ label: String) -> Endpoint {
            // The factory's handler itself: `Recorder`'s generic `record` converted every value
            // through unspecialized code.
            let durations = factory.makeRecorder(
                label: RequestMetrics.durationLabel, dimensions: [("endpoint", label)], aggregate: true)
            let endpoint = Endpoint(label: label, durations: durations)
            byEndpoint[label] = endpoint
            return endpoint
        }

        func record(_ endpoint: Endpoint, _ status: Int, nanoseconds: UInt64?) {
            counter(endpoint, status).increment()
            if let nanoseconds { endpoint.durations.record(Double(nanoseconds) / 1_000_000_000) }
        }

        private func counter(_ endpoint: Endpoint, _ status: Int) -> Counter {
            lock.lock()
            defer { lock.unlock() }
            if let known = endpoint.counters.first(where: { $0.status == status }) { return known.counter }
            let counter = Counter(
                label: "pushgate_requests_total",
                dimensions: [("endpoint", endpoint.label), ("status", String(status))], factory: factory)
            endpoint.counters.append((status, counter))
            return counter
        }
    }
}
