import PushCore

/// Why a bridge request was refused. Every refusal answers the document's error shape,
/// `{"response": {"error": "…"}}`, with the correlation of a wrapped request when it was read.
enum BridgeError: DialectError, Equatable {
    case unsupportedContentType(String)
    case bodyTooLarge(limit: Int)
    case invalidUTF8
    case malformedJSON
    case nestedTooDeep
    case notAnObject(String)
    case unknownField(String)
    case missing(String)
    case wrongType(field: String, expected: String)
    case invalidField(String, String)
    case bothOperations
    case noOperation
    case invalidSelector(TopicSelector.ParseError)
    case invalidTopicPath(String)
    case notFound(String)
    /// The bridge is not set up for this kind of destination: an operator's fault, so the
    /// client hears only that, and the log line names the key to set.
    case notConfigured(client: String, operator: String)
    /// The selector is outside `PUSHGATE_BRIDGE_TOPICS`.
    case topicNotServed(String)
    /// The destination has `limit` subscriptions already.
    case tooManySubscriptions(limit: Int)
    /// A new subscription refused: the caller's address created
    /// `PUSHGATE_NEW_DEVICES_PER_HOUR` within the hour, or the app has
    /// `PUSHGATE_MAX_DEVICES_PER_APP` devices. Nothing was stored.
    case newDeviceRefused(NewDeviceGate.Refusal)

    /// The status, the words and the headers of each refusal.
    private var parts: (status: Int, message: String, headers: [(name: String, value: String)]) {
        switch self {
        case .unsupportedContentType(let type):
            return (415, "unsupported content type \(type): use application/json", [])
        case .bodyTooLarge(let limit): return (413, "request body is larger than \(limit) bytes", [])
        case .invalidUTF8: return (400, "body is not valid UTF-8", [])
        case .malformedJSON: return (400, "body is not valid JSON", [])
        case .nestedTooDeep: return (400, "body is nested deeper than \(JSONNesting.maximumDepth) levels", [])
        case .notAnObject(let what): return (400, "\(what) must be a JSON object", [])
        case .unknownField(let field): return (400, "unknown field \(field)", [])
        case .missing(let field): return (400, "\(field) is required", [])
        case .wrongType(let field, let expected): return (400, "\(field) must be \(expected)", [])
        case .invalidField(let field, let reason): return (400, "\(field) \(reason)", [])
        case .bothOperations: return (400, "a message holds either pnsub or pnunsub, not both", [])
        case .noOperation: return (400, "the message holds neither pnsub nor pnunsub", [])
        case .invalidSelector(let error): return (400, error.description, [])
        case .invalidTopicPath(let reason): return (400, reason, [])
        case .notFound(let path): return (404, "no bridge endpoint at \(path)", [])
        case .notConfigured(let client, _): return (503, client, [])
        case .topicNotServed(let selector):
            return (403, "topic selector \(selector) is outside the topics this bridge serves", [])
        case .tooManySubscriptions(let limit):
            return (
                422, "the destination has \(limit) subscriptions, the most one may have: unsubscribe from one first", []
            )
        case .newDeviceRefused(.addressQuota(let seconds)):
            return (
                429, "too many new subscriptions from this address: try again in \(seconds) s",
                [("Retry-After", String(seconds))]
            )
        case .newDeviceRefused(.appCeiling(_, let maximum)):
            return (507, "the app has \(maximum) devices, the most this bridge keeps: no new device is stored", [])
        }
    }

    /// Without a correlation: the request was not read far enough to know one.
    var response: Response { response(correlation: nil) }

    func response(correlation: String?) -> Response {
        let (status, message, headers) = parts
        let response = BridgeResponse.error(message, correlation: correlation, status: status, headers: headers)
        guard case .notConfigured(_, let detail) = self else { return response }
        return response.noted(detail)
    }
}

/// A failure on our side while answering a request whose correlation is known: the bridge's
/// error shape with it, a 500 (or a 503 while the database is away).
struct CorrelatedFailure: DialectError {
    let failure: ServiceFailure
    let correlation: String?

    static func response(_ failure: ServiceFailure, correlation: String?) -> Response {
        let (status, headers) = (failure.status, failure.headers)
        return BridgeResponse.error(failure.message, correlation: correlation, status: status, headers: headers)
            .noted(failure.detail)
    }

    var response: Response { Self.response(failure, correlation: correlation) }
}
