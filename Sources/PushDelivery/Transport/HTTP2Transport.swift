/// The network seam of delivery (STYLE 14): everything PushDelivery sends to APNs, FCM or an
/// OAuth token endpoint goes through one of these. `CurlEngine` is the real one; tests use a fake
/// that answers from preloaded replies and records what it was asked.
public protocol HTTP2Transport: Sendable {
    /// Starts `request` and returns at once; `completion` runs exactly once, on a thread of the
    /// transport's choosing (the engine thread for `CurlEngine`), so it must be quick and must
    /// not block: it may submit further requests.
    func submit(_ request: UpstreamRequest, completion: @escaping @Sendable (UpstreamOutcome) -> Void)
}

extension HTTP2Transport {
    /// Runs `requests` concurrently and blocks the calling thread until every one is answered;
    /// the outcomes come back in the order of the requests. Never call it from a completion:
    /// the transport's thread would wait for itself.
    public func perform(_ requests: [UpstreamRequest]) -> [UpstreamOutcome] {
        let collector = OrderedCollector<UpstreamOutcome>(count: requests.count)
        for (index, request) in requests.enumerated() {
            submit(request) { collector.set(index, $0) }
        }
        return collector.wait()
    }

    /// One request, blocking until it is answered.
    public func perform(_ request: UpstreamRequest) -> UpstreamOutcome {
        perform([request])[0]
    }
}

/// What became of one request: the upstream's reply (any status), or no reply at all.
public typealias UpstreamOutcome = Result<UpstreamResponse, TransportError>
