import PushCore

/// One `pnsub` or `pnunsub` request, bare as the document shows it or wrapped as Diffusion
/// clients send it: `{"request": {"correlation": "<id>", "content": {"pnsub": …}}}`.
struct BridgeMessage: Equatable {
    enum Operation: String, Equatable {
        case subscribe = "pnsub"
        case unsubscribe = "pnunsub"
    }

    var operation: Operation
    /// As the client wrote them, for the echo in the response.
    var destination: String
    var topic: String
    var correlation: String?

    static let maximumCorrelationLength = 200
    static let maximumFieldLength = 4096

    /// Parses `object`; a refusal carries the correlation when it could be read, so that the
    /// client can match the error to its request.
    static func parse(_ object: [String: JSONValue]) throws(Refusal) -> BridgeMessage {
        var correlation: String?
        do throws(BridgeError) {
            var content = object
            if let wrapped = object["request"] {
                try BridgeRequestBody.refuseUnknown(object, known: ["request"], in: nil)
                guard let request = wrapped.objectValue else { throw BridgeError.notAnObject("request") }
                if let value = request["correlation"] {
                    guard let text = value.stringValue, !text.isEmpty,
                        text.utf8.count <= maximumCorrelationLength
                    else {
                        throw BridgeError.wrongType(
                            field: "request.correlation",
                            expected: "a non-empty string of at most \(maximumCorrelationLength) bytes")
                    }
                    correlation = text
                }
                try BridgeRequestBody.refuseUnknown(request, known: ["correlation", "content"], in: "request")
                guard let inner = request["content"] else { throw BridgeError.missing("request.content") }
                guard let innerObject = inner.objectValue else { throw BridgeError.notAnObject("request.content") }
                content = innerObject
            }
            var message = try operation(in: content)
            message.correlation = correlation
            return message
        } catch {
            throw Refusal(error: error, correlation: correlation)
        }
    }

    struct Refusal: DialectError, Equatable {
        let error: BridgeError
        let correlation: String?

        var response: Response { error.response(correlation: correlation) }
    }

    private static func operation(in content: [String: JSONValue]) throws(BridgeError) -> BridgeMessage {
        let subscribe = content[Operation.subscribe.rawValue]
        let unsubscribe = content[Operation.unsubscribe.rawValue]
        // The document leaves both in one message undefined: refusing it is the only answer
        // that cannot do the opposite of what the client meant.
        if subscribe != nil, unsubscribe != nil { throw .bothOperations }
        try BridgeRequestBody.refuseUnknown(content, known: ["pnsub", "pnunsub"], in: nil)
        guard
            let requested = subscribe.map({ (Operation.subscribe, $0) })
                ?? unsubscribe.map({ (Operation.unsubscribe, $0) })
        else { throw .noOperation }
        let (operation, body) = requested
        let name = operation.rawValue
        guard let fields = body.objectValue else { throw .notAnObject(name) }
        try BridgeRequestBody.refuseUnknown(fields, known: ["destination", "topic"], in: name)
        return BridgeMessage(
            operation: operation, destination: try string(fields, "destination", in: name),
            topic: try string(fields, "topic", in: name), correlation: nil)
    }

    private static func string(_ fields: [String: JSONValue], _ name: String, in context: String) throws(BridgeError)
        -> String
    {
        let field = "\(context).\(name)"
        guard let value = fields[name], !value.isNull else { throw .missing(field) }
        guard let text = value.stringValue else { throw .wrongType(field: field, expected: "a string") }
        guard !text.isEmpty else { throw .missing(field) }
        guard text.utf8.count <= maximumFieldLength else {
            throw .invalidField(field, "is longer than \(maximumFieldLength) bytes")
        }
        return text
    }

    /// What a successful response's `content` holds: the request's operation as the client
    /// sent it, so that a client with several requests in flight can tell which succeeded.
    var echo: JSONValue {
        .object([operation.rawValue: .object(["destination": .string(destination), "topic": .string(topic)])])
    }
}
