import PushCore

/// The Token Reporter's and Account Removal Reporter's refusals: plain text, as a softphone
/// logs them.
public struct ReporterErrors: ErrorRenderer {
    public init() {}
    public func badPath(_ reason: String) -> Response {
        ReporterError.badRequest(reason).response
    }

    /// Over the server's body limit: the same refusal as over the reporters' own.
    public func bodyTooLarge(bytes: Int, limit: Int) -> Response {
        ReporterError.bodyTooLarge(limit: min(limit, TokenReporter.bodyLimit)).response
    }

    public func failure(_ failure: ServiceFailure) -> Response {
        ReporterError.failure(failure)
    }

    /// Every reporter route serves GET and POST, which the refusal names itself.
    public func methodNotAllowed(_ method: String, allowed: [String]) -> Response {
        ReporterError.methodNotAllowed(method).response
    }
}
