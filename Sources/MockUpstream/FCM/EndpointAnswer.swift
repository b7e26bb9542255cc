/// What one FCM endpoint made of a request: the response, and what to record about it.
struct EndpointAnswer: Sendable {
    var response: MockHTTPResponse
    var auth: RecordedAuth = .none
    /// The OAuth `error`, or the FCM `errorCode` (else the canonical status); nil on success.
    var reason: String?
    var deviceToken: String?

    static let jsonContentType = (name: "content-type", value: "application/json; charset=UTF-8")

    static func json(_ status: Int, _ body: [UInt8], extraHeaders: [(name: String, value: String)] = [])
        -> MockHTTPResponse
    {
        MockHTTPResponse(status: status, headers: [jsonContentType] + extraHeaders, body: body)
    }

    /// This answer (its auth and token kept) turned into a JSON error recorded under `reason`.
    func failing(
        _ status: Int, _ body: [UInt8], reason: String, extraHeaders: [(name: String, value: String)] = []
    ) -> EndpointAnswer {
        var answer = self
        answer.response = Self.json(status, body, extraHeaders: extraHeaders)
        answer.reason = reason
        return answer
    }
}
