import PushCore

/// The document's response message: `{"response": {"content": …}}` on success,
/// `{"response": {"error": "…"}}` on failure, with `correlation` beside either when the
/// request came wrapped with one (as Diffusion clients send it).
enum BridgeResponse {
    static func content(_ content: JSONValue, correlation: String?, status: Int = 200) -> Response {
        body(["content": content], correlation: correlation, status: status, headers: [])
    }

    static func error(
        _ message: String, correlation: String?, status: Int, headers: [(name: String, value: String)]
    ) -> Response {
        body(["error": .string(message)], correlation: correlation, status: status, headers: headers)
    }

    private static func body(
        _ fields: [String: JSONValue], correlation: String?, status: Int, headers: [(name: String, value: String)]
    ) -> Response {
        var fields = fields
        if let correlation { fields["correlation"] = .string(correlation) }
        return .json(status, JSONValue.object(["response": .object(fields)]).encoded(), headers: headers)
    }
}
