import PushCore

/// The JSON object body every Beams request carries, checked before any field is read.
struct BeamsJSONBody {
    /// The publish API's limit; client requests are far smaller.
    static let maximumBytes = 10 * 1024

    let fields: [String: JSONValue]

    /// - Parameter limit: the request's own limit, when it is not the publish API's.
    init(_ request: Request, limit: Int = Self.maximumBytes) throws(BeamsError) {
        guard request.mediaType == "application/json" else { throw .invalidContentType }
        guard request.body.count <= limit else { throw .bodyTooLarge(limit: limit) }
        let value: JSONValue
        do {
            value = try JSONValue.parse(request.body)
        } catch .invalidUTF8 {
            throw .unreadableBody("it is not valid UTF-8")
        } catch .tooDeep {
            throw .unreadableBody("it is nested deeper than \(JSONNesting.maximumDepth) levels")
        } catch {
            throw .unreadableBody(request.body.isEmpty ? "it is empty" : "it is not valid JSON")
        }
        guard let object = value.objectValue else { throw .unreadableBody("it is not an object") }
        fields = object
    }

    /// A required string field, non-empty.
    func string(_ name: String) throws(BeamsError) -> String {
        switch fields[name] {
        case nil, .null?: throw .invalidField("\(name) is required.")
        case .string(let value)?:
            guard !value.isEmpty else { throw .invalidField("\(name) must not be empty.") }
            // Every string field of the client API is a key, a name or a token: none holds a
            // control character, and PostgreSQL could not even look one with NUL up.
            guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw .invalidField("\(name) must not contain control characters.")
            }
            return value
        default: throw .invalidField("\(name) must be a string.")
        }
    }

    /// `platform_type`, one of Beams' three names.
    func platformType() throws(BeamsError) -> BeamsPlatformType {
        let name = try string("platform_type")
        guard let type = BeamsPlatformType(rawValue: name) else {
            throw .invalidField("platform_type must be \"apns\", \"fcm\" or \"gcm\".")
        }
        return type
    }
}
