import Foundation
import PushCore

/// JSON out of the cospace handlers: sorted keys so that bodies are stable, slashes unescaped.
enum CospaceJSON {
    static func encode(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A JSONValue always encodes: it holds nothing but JSON.
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }

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
