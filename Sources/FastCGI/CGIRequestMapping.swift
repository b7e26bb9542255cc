import PushCore

/// Turns the CGI parameters and body the front server sent into a transport-neutral `Request`.
/// Pure, so it is tested without libfcgi or nginx.
enum CGIRequestMapping {
    /// `fallbackID` is only worked out when the front server sent no `REQUEST_ID` (nginx does).
    static func request(params: [String: String], body: [UInt8], fallbackID: @autoclosure () -> String) -> Request {
        let (path, query) = target(params)
        return Request(
            method: nonEmpty(params["REQUEST_METHOD"]) ?? "GET",
            path: path,
            query: query,
            headers: headers(params),
            body: body,
            // Never default to loopback: loopback callers get send rights when no API key exists.
            remoteAddress: params["REMOTE_ADDR"] ?? "",
            id: nonEmpty(params["REQUEST_ID"]) ?? fallbackID())
    }

    /// Path and query as the client sent them, still percent-encoded. `REQUEST_URI` is the raw
    /// request target; `DOCUMENT_URI` is nginx's decoded and normalised path (`%2F` already
    /// turned into `/`), so it is only the fallback for front servers that send no `REQUEST_URI`.
    static func target(_ params: [String: String]) -> (path: String, query: String) {
        if let uri = nonEmpty(params["REQUEST_URI"]) {
            let target = originForm(uri)
            guard let question = target.firstIndex(of: "?") else { return (target, "") }
            return (String(target[..<question]), String(target[target.index(after: question)...]))
        }
        let path =
            nonEmpty(params["DOCUMENT_URI"])
            ?? nonEmpty((params["SCRIPT_NAME"] ?? "") + (params["PATH_INFO"] ?? ""))
            ?? "/"
        return (path, params["QUERY_STRING"] ?? "")
    }

    /// `HTTP_USER_AGENT` → `user-agent`; `CONTENT_TYPE` and `CONTENT_LENGTH` (which CGI keeps
    /// apart from the other headers) → `content-type`, `content-length`. The CGI variables win
    /// over a same-named `HTTP_*` param: they describe the body nginx actually forwards.
    static func headers(_ params: [String: String]) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in params where name.hasPrefix("HTTP_") {
            headers[headerName(cgiName: name.dropFirst(5))] = value
        }
        if let type = nonEmpty(params["CONTENT_TYPE"]) { headers["content-type"] = type }
        if let length = nonEmpty(params["CONTENT_LENGTH"]) { headers["content-length"] = length }
        return headers
    }

    /// nginx drops client headers with `_` in their names (`underscores_in_headers off`), so
    /// every `_` in a param name stood for a `-`.
    static func headerName(cgiName: Substring) -> String {
        String(
            decoding: cgiName.utf8.map { byte -> UInt8 in
                switch byte {
                case UInt8(ascii: "_"): return UInt8(ascii: "-")
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte + 32
                default: return byte
                }
            }, as: UTF8.self)
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
