import PushCore

/// The Token Reporter's and Account Removal Reporter's refusals: plain text, as a softphone
/// logs them.
public struct ReporterErrors: ErrorRenderer {
    public init() {}
    public func badPath(_ reason: String) -> Response {
        .text(400, reason)
    }

    /// Over the server's body limit: the same refusal as over the reporters' own.
    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        ReporterError.bodyTooLarge(limit: min(limit, TokenReporter.bodyLimit)).response
    }

    /// A failure on our side, in the same one-line text.
    public func failure(_ failure: ServiceFailure) -> Response {
        PlainErrors().failure(failure)
    }

    /// Every reporter route serves GET and POST, which the refusal names itself.
    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        .text(405, "method \(method) not allowed: use GET or POST", headers: [("Allow", "GET, POST")])
    }
}
