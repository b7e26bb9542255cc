/// The logic of one mock: judges a request and says how to answer it. Called on an event-loop
/// thread for every request, concurrently from several connections, so it must be quick and
/// thread-safe.
protocol MockResponder: Sendable {
    func reply(to request: MockHTTPRequest) -> MockReply
}
