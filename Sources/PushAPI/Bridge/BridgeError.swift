import PushCore

/// Why a bridge request was refused. Every refusal answers the document's error shape,
/// `{"response": {"error": "…"}}`, with the correlation of a wrapped request when it was read.
enum BridgeError: DialectError, Equatable {
    case methodNotAllowed(String)
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
    /// A path nginx would read otherwise (see `RequestPathCheck`).
    case invalidPath(String)
    case notFound(String)
    /// The bridge is not set up for this kind of destination: an operator's fault, so the
    /// client hears only that, and the log line names the key to set.
    case notConfigured(client: String, operator: String)
    case unauthorized(String)
    case forbidden(String)
    /// The selector is outside `PUSHGATE_BRIDGE_TOPICS`.
    case topicNotServed(String)
    /// The destination has `limit` subscriptions already.
    case tooManySubscriptions(limit: Int)
    /// A new subscription refused: the caller's address created
    /// `PUSHGATE_NEW_DEVICES_PER_HOUR` within the hour, or the app has
    /// `PUSHGATE_MAX_DEVICES_PER_APP` devices. Nothing was stored.
    case newDeviceRefused(NewDeviceGate.Refusal)

    var status: Int {
        switch self {
        case .methodNotAllowed: return 405
        case .unsupportedContentType: return 415
        case .bodyTooLarge: return 413
        case .notFound: return 404
        case .notConfigured: return 503
        case .unauthorized: return 401
        case .forbidden, .topicNotServed: return 403
        case .tooManySubscriptions: return 422
        case .newDeviceRefused(.addressQuota): return 429
        case .newDeviceRefused(.appCeiling): return 507
        default: return 400
        }
    }

    var message: String {
        switch self {
        case .methodNotAllowed(let method): return "method \(method) not allowed: use POST"
        case .unsupportedContentType(let type): return "unsupported content type \(type): use application/json"
        case .bodyTooLarge(let limit): return "request body is larger than \(limit) bytes"
        case .invalidUTF8: return "body is not valid UTF-8"
        case .malformedJSON: return "body is not valid JSON"
        case .nestedTooDeep: return "body is nested deeper than \(JSONNesting.maximumDepth) levels"
        case .notAnObject(let what): return "\(what) must be a JSON object"
        case .unknownField(let field): return "unknown field \(field)"
        case .missing(let field): return "\(field) is required"
        case .wrongType(let field, let expected): return "\(field) must be \(expected)"
        case .invalidField(let field, let reason): return "\(field) \(reason)"
        case .bothOperations: return "a message holds either pnsub or pnunsub, not both"
        case .noOperation: return "the message holds neither pnsub nor pnunsub"
        case .invalidSelector(let error): return error.description
        case .invalidTopicPath(let reason), .invalidPath(let reason): return reason
        case .notFound(let path): return "no bridge endpoint at \(path)"
        case .notConfigured(let client, _): return client
        case .unauthorized(let reason): return reason
        case .forbidden(let reason): return reason
        case .topicNotServed(let selector): return "topic selector \(selector) is outside the topics this bridge serves"
        case .tooManySubscriptions(let limit):
            return "the destination has \(limit) subscriptions, the most one may have: unsubscribe from one first"
        case .newDeviceRefused(.addressQuota(let seconds)):
            return "too many new subscriptions from this address: try again in \(seconds) s"
        case .newDeviceRefused(.appCeiling(_, let maximum)):
            return "the app has \(maximum) devices, the most this bridge keeps: no new device is stored"
        }
    }

    var headers: [(name: String, value: String)] {
        switch self {
        case .methodNotAllowed: return [("Allow", "POST")]
        case .unauthorized: return [("WWW-Authenticate", SenderAuthorization.challenge)]
        case .newDeviceRefused(.addressQuota(let seconds)): return [("Retry-After", String(seconds))]
        default: return []
        }
    }

    /// Without a correlation: the request was not read far enough to know one.
    var response: Response { response(correlation: nil) }

    func response(correlation: String?) -> Response {
        var response = BridgeResponse.error(message, correlation: correlation, status: status, headers: headers)
        if case .notConfigured(_, let detail) = self { response.logNote = detail }
        return response
    }
}

/// A failure on our side while answering a request whose correlation is known: the bridge's
/// error shape with it, a 500 (or a 503 while the database is away).
struct CorrelatedFailure: DialectError {
    let failure: ServiceFailure
    let correlation: String?

    static func response(_ failure: ServiceFailure, correlation: String?) -> Response {
        failure.noted(
            BridgeResponse.error(failure.message, correlation: correlation, status: failure.status, headers: failure.headers))
    }

    var response: Response { Self.response(failure, correlation: correlation) }
}
