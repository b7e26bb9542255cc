import PushCore

/// Turns the CGI parameters and body the front server sent into a transport-neutral `Request`.
/// Pure, so it is tested without libfcgi or nginx.
enum CGIRequestMapping {
    /// `fallbackID` is only worked out when the front server sent no `REQUEST_ID` (nginx does).
    static func request(params: CGIParams, body: [UInt8], fallbackID: @autoclosure () -> String) -> Request {
        let (path, query) = target(params)
        return Request(
            method: nonEmpty(params.requestMethod) ?? "GET",
            path: path,
            query: query,
            headers: headers(params),
            body: body,
            // Never default to loopback: loopback callers get send rights when no API key exists.
            remoteAddress: params.remoteAddress ?? "",
            id: nonEmpty(params.requestID) ?? fallbackID())
    }

    /// Path and query as the client sent them, still percent-encoded. `REQUEST_URI` is the raw
    /// request target; `DOCUMENT_URI` is nginx's decoded and normalised path (`%2F` already
    /// turned into `/`), so it is only the fallback for front servers that send no `REQUEST_URI`.
    static func target(_ params: CGIParams) -> (path: String, query: String) {
        if let uri = nonEmpty(params.requestURI) {
            var target = originForm(uri)
            guard let offset = target.withUTF8({ $0.firstIndex(of: UInt8(ascii: "?")) }) else { return (target, "") }
            let utf8 = target.utf8
            let question = utf8.index(utf8.startIndex, offsetBy: offset)
            return (String(target[..<question]), String(target[utf8.index(after: question)...]))
        }
        let path =
            nonEmpty(params.documentURI)
            ?? nonEmpty((params.scriptName ?? "") + (params.pathInfo ?? ""))
            ?? "/"
        return (path, params.queryString ?? "")
    }

    /// The `HTTP_*` params as headers, with `CONTENT_TYPE` and `CONTENT_LENGTH` (which CGI keeps
    /// apart from the other headers) as `content-type`, `content-length`. The CGI variables win
    /// over a same-named `HTTP_*` param: they describe the body nginx actually forwards.
    static func headers(_ params: CGIParams) -> HTTPHeaders {
        var headers = params.headers
        if let type = nonEmpty(params.contentType) { headers["content-type"] = type }
        if let length = nonEmpty(params.contentLength) { headers["content-length"] = length }
        return headers
    }

    /// A client may send an absolute-form target (`GET http://host/path`); handlers route on
    /// the path alone.
    private static func originForm(_ uri: String) -> String {
        guard !uri.hasPrefix("/"), let scheme = uri.range(of: "://") else { return uri }
        let afterAuthority = uri[scheme.upperBound...]
        guard let slash = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
        let rest = String(afterAuthority[slash...])
        return rest.hasPrefix("?") ? "/" + rest : rest
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
