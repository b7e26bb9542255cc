import CoreMetrics
import Dispatch
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
        handles.busy.increment()
        defer { handles.busy.decrement() }
        let start = DispatchTime.now().uptimeNanoseconds
        var request = request
        if request.route == nil { _ = router.route(&request) }  // driven without the edge (tests)
        let endpoint = request.route?.endpoint ?? RouteMatch.none.endpoint
        var response = router.handle(request)
        if let parked = response.parked {
            // Counted when its answer comes: the status, and the time it was out. Under the
            // request's lane, which it is parked on even when a responder thread checked it.
            let gauge = handles.parked(lane: request.route?.lane?.name)
            gauge.increment()
            response.parked = parked.map { [self] answer in
                gauge.decrement()
                record(endpoint, answer.status, nanoseconds: DispatchTime.now().uptimeNanoseconds &- start)
                return answer
            }
            return response
        }
        record(endpoint, response.status, nanoseconds: DispatchTime.now().uptimeNanoseconds &- start)
        return response
    }

    func refuse(_ head: Request, _ refusal: EdgeRefusal) -> Response {
        let response = router.refuse(head, refusal)
        record(head.route?.endpoint ?? RouteMatch.none.endpoint, response.status, nanoseconds: nil)
        return response
    }

    private func record(_ endpoint: String, _ status: Int, nanoseconds: UInt64?) {
        handles.requests(endpoint: endpoint, status: status).increment()
        if let nanoseconds {
            handles.duration(endpoint: endpoint).recordNanoseconds(Int64(clamping: nanoseconds))
        }
    }

    /// The metric objects of one router, made on first use. Its own thread uses them for
    /// every request; `refuse` may come from another, hence the (uncontended) lock.
    private final class Handles: @unchecked Sendable {
        // @unchecked: `counters` and `timers` are only touched under `lock`.
        let busy: Meter
        private let thread: String
        private let factory: any MetricsFactory
        private let lock = NSLock()
        private var counters: [EndpointStatus: Counter] = [:]
        private var timers: [String: CoreMetrics.Timer] = [:]
        private var parkedByLane: [String: Meter] = [:]

        private struct EndpointStatus: Hashable {
            let endpoint: String
            let status: Int
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

        func requests(endpoint: String, status: Int) -> Counter {
            let key = EndpointStatus(endpoint: endpoint, status: status)
            lock.lock()
            defer { lock.unlock() }
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "pushgate_requests_total", dimensions: [("endpoint", endpoint), ("status", String(status))],
                factory: factory)
            counters[key] = counter
            return counter
        }

        func duration(endpoint: String) -> CoreMetrics.Timer {
            lock.lock()
            defer { lock.unlock() }
            if let timer = timers[endpoint] { return timer }
            let timer = CoreMetrics.Timer(
                label: RequestMetrics.durationLabel, dimensions: [("endpoint", endpoint)], factory: factory)
            timers[endpoint] = timer
            return timer
        }
    }
}
