/// What decides whether two requests may share a connection: the origin (scheme, host, port)
/// and the client identity. libcurl never reuses a connection across identities.
struct ConnectionKey: Hashable {
    var origin: Substring
    var identity: ClientIdentity?

    init(_ request: UpstreamRequest) {
        identity = request.clientIdentity
        let url = request.url
        // "https://host:port/path" → "https://host:port"; a malformed URL keys as a whole.
        guard let scheme = url.range(of: "://") else {
            origin = url[...]
            return
        }
        let rest = url[scheme.upperBound...]
        origin = url[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? url.endIndex)]
    }
}
