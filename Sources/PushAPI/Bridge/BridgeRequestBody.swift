import PushCore

/// The checks every bridge endpoint makes before reading its JSON (after the method, which
/// its route gives the router): a JSON (or absent) content type, a body within `limit`, valid
/// UTF-8, and a JSON object.
enum BridgeRequestBody {
    static func object(of request: Request, limit: Int) throws(BridgeError) -> [String: JSONValue] {
        if let type = request.mediaType, type != "application/json" { throw .unsupportedContentType(type) }
        guard request.body.count <= limit else { throw .bodyTooLarge(limit: limit) }
        let value: JSONValue
        do throws(JSONValue.ParseError) {
            value = try JSONValue.parse(request.body)
        } catch {
            if error == .invalidUTF8 { throw BridgeError.invalidUTF8 }
            if error == .tooDeep { throw BridgeError.nestedTooDeep }
            throw BridgeError.malformedJSON
        }
        guard let object = value.objectValue else { throw .notAnObject("the body") }
        return object
    }

    /// Refuses the first field of `object` not in `known`, so a misspelt field is named
    /// instead of silently ignored.
    static func refuseUnknown(_ object: [String: JSONValue], known: Set<String>, in context: String?) throws(BridgeError) {
        if let unknown = object.keys.sorted().first(where: { !known.contains($0) }) {
            throw .unknownField(context.map { "\($0).\(unknown)" } ?? unknown)
        }
    }
}
