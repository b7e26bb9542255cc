import PushCore

/// The JSON request bodies of the cospace handlers.
enum CospaceJSON {
    /// The request body as a JSON object, or `invalid-json`.
    static func object(_ request: Request, limit: Int) throws(CospaceError) -> [String: JSONValue] {
        guard request.body.count <= limit else { throw .bodyTooLarge(limit: limit) }
        guard let type = request.mediaType, type == "application/json" || type.hasSuffix("+json") else {
            throw .unsupportedMediaType
        }
        guard case .object(let object)? = try? JSONValue.parse(request.body) else { throw .invalid("invalid-json") }
        return object
    }
}
