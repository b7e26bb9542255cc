import CoreMetrics
import Dispatch
import PushAPI
import PushCore

/// Counts and times every request by the route it went to (`pushgate_requests_total
/// {endpoint, status}`, `pushgate_request_duration_seconds{endpoint}`), and the threads busy
/// answering (`pushgate_busy_threads{lane}`): the router of a responder thread, measured.
/// The endpoint is the route's prefix, never the raw path.
struct RequestMetrics: LaneAssigning {
    static let durationLabel = "pushgate_request_duration_seconds"

    private let router: Router
    private let factory: any MetricsFactory

    init(router: Router, factory: any MetricsFactory) {
        self.router = router
        self.factory = factory
    }

    func handle(_ request: Request) -> Response {
        // The threads answering right now: the responder threads', and each lane's own.
        let busy = Meter(
            label: "pushgate_busy_threads", dimensions: [("lane", router.lane(for: request)?.name ?? "responder")],
            factory: factory)
        busy.increment()
        let start = DispatchTime.now().uptimeNanoseconds
        let response = router.handle(request)
        record(request, response.status, nanoseconds: DispatchTime.now().uptimeNanoseconds &- start)
        busy.decrement()
        return response
    }

    func bodyTooLarge(_ request: Request, bytes: Int, limit: Int) -> Response {
        let response = router.bodyTooLarge(request, bytes: bytes, limit: limit)
        record(request, response.status, nanoseconds: nil)
        return response
    }

    func lane(for request: Request) -> RequestLane? {
        router.lane(for: request)
    }

    func busyResponse(for request: Request) -> Response {
        let response = router.busyResponse(for: request)
        record(request, response.status, nanoseconds: nil)
        return response
    }

    private func record(_ request: Request, _ status: Int, nanoseconds: UInt64?) {
        let endpoint = router.routeName(for: request.path) ?? "none"
        Counter(
            label: "pushgate_requests_total", dimensions: [("endpoint", endpoint), ("status", String(status))],
            factory: factory
        ).increment()
        if let nanoseconds {
            Timer(label: Self.durationLabel, dimensions: [("endpoint", endpoint)], factory: factory)
                .recordNanoseconds(Int64(clamping: nanoseconds))
        }
    }
}
