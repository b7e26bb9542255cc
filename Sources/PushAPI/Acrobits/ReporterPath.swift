import PushCore

/// The parameters the Acrobits URL templates put in the path rather than the query, as the
/// reporters' routes match them: `/token/{username}/` and
/// `/pushToken/{username}/{selector}/{token...}` (the token, whose base64 may hold `/`, with
/// `&appid=<appid>[&more=…]` after it).
enum ReporterPath {
    /// The routes of one reporter at `prefix` (`/token`, `/removeAccount`), answered by
    /// `handler`; with `tokenStyle`, the `/pushToken/…` ones too. What matches none of their
    /// shapes is refused in the reporters' shape.
    static func routes(prefix: String, tokenStyle: String? = nil, _ handler: any DialectHandler) -> [Router.Route] {
        var routes: [Router.Route] = [
            .init(prefix + "/?", handler, methods: methods),
            .init(prefix + "/{username}/?", handler, methods: methods),
            .init(prefix + "/{path...}", unknownPath, methods: methods),
        ]
        if let tokenStyle {
            routes += [
                .init(tokenStyle + "/{username}/{selector}/{token...}", handler, opaqueTail: true, methods: methods),
                .init(tokenStyle + "/{path...}", unknownPath, methods: methods),
            ]
        }
        return routes
    }

    /// What every report may use, on every route of the reporters, an unknown path's too: a
    /// wrong method is refused before anything else whatever the path.
    static let methods = ["GET", "POST"]

    /// A path of none of the reporters' shapes (`/token/a/b`): refused after the checks every
    /// report gets first.
    static let unknownPath = UnknownPath { request in
        try checkSize(request)
        throw ReporterError.unknownPath(request.path)
    }

    /// The values the request's route took from its path (`parameters`), percent-decoded.
    static func values(of request: Request, _ parameters: RouteParameters) throws(ReporterError) -> FormParameters {
        guard let username = parameters["username"] else {
            return FormParameters()
        }
        var values = FormParameters(pairs: [("username", try decode(username))])
        guard let selector = parameters["selector"] else { return values }
        guard let tokenAndMore = parameters["token"] else { throw .unknownPath(request.path) }
        values.append(name: "selector", value: try decode(selector))
        let parts = tokenAndMore.split(separator: "&", maxSplits: 1, omittingEmptySubsequences: false)
        // `+` stays `+` in a path (it is a space only in form encoding): base64 tokens keep it.
        values.append(name: "pushToken", value: try decode(parts[0]))
        if parts.count > 1 {
            guard let more = try? FormParameters.parse(parts[1]) else { throw .badPercentEncoding }
            values.append(contentsOf: more)
        }
        return values
    }

    /// The size every report is checked for first, whatever its path (after its method, which
    /// the router checks: see `methods`).
    static func checkSize(_ request: Request) throws(ReporterError) {
        guard request.body.count <= TokenReporter.bodyLimit else { throw .bodyTooLarge(limit: TokenReporter.bodyLimit) }
    }

    private static func decode(_ segment: Substring) throws(ReporterError) -> String {
        do {
            return try FormParameters.percentDecode(segment, plusAsSpace: false)
        } catch .invalidUTF8 {
            throw .invalidUTF8("path")
        } catch {
            throw .badPercentEncoding
        }
    }
}
