import PushCore

/// Why a Token Reporter or Account Removal Reporter request was refused. Acrobits apps only
/// look at the status, so the dialect's error shape is a 4xx with a one-line text reason.
enum ReporterError: DialectError, Equatable {
    case unsupportedContentType(String)
    case invalidUTF8(String)
    case malformedJSON
    case nestedTooDeep
    case bodyTooLarge(limit: Int)
    case notAnObject
    case wrongType(field: String)
    case badPercentEncoding
    case unknownPath(String)
    case missing(String)
    case tooLong(field: String, limit: Int)
    case invalidValue(field: String, reason: String)
    case tokenWithoutAppID(token: String, appID: String)
    /// A new device refused: the caller's address created `PUSHGATE_NEW_DEVICES_PER_HOUR`
    /// within the hour, or the app has `PUSHGATE_MAX_DEVICES_PER_APP`. Nothing was stored.
    case newDeviceRefused(NewDeviceGate.Refusal)

    var response: Response {
        switch self {
        case .unsupportedContentType(let type):
            return .text(400, "unsupported content type \(type): use application/x-www-form-urlencoded or application/json")
        case .invalidUTF8(let part):
            return .text(400, "\(part) is not valid UTF-8")
        case .malformedJSON:
            return .text(400, "body is not valid JSON")
        case .nestedTooDeep:
            return .text(400, "JSON body is nested deeper than \(JSONNesting.maximumDepth) levels")
        case .bodyTooLarge(let limit):
            return .text(413, "body is larger than \(limit) bytes")
        case .notAnObject:
            return .text(400, "JSON body must be an object")
        case .wrongType(let field):
            return .text(400, "\(field) must be a string")
        case .badPercentEncoding:
            return .text(400, "malformed percent-encoding")
        case .unknownPath(let path):
            return .text(404, "no reporter endpoint at \(path)")
        case .missing(let field):
            return .text(400, "\(field) is required")
        case .tooLong(let field, let limit):
            return .text(400, "\(field) is longer than \(limit) characters")
        case .invalidValue(let field, let reason):
            return .text(400, "\(field) \(reason)")
        case .tokenWithoutAppID(let token, let appID):
            return .text(400, "\(token) was given without \(appID)")
        case .newDeviceRefused(.addressQuota(let seconds)):
            return .text(
                429, "too many new devices from this address: try again in \(seconds) s",
                headers: [("Retry-After", String(seconds))])
        case .newDeviceRefused(.appCeiling(let app, let maximum)):
            return .text(507, "\(app) has \(maximum) devices, the most this server keeps: no new device is stored")
        }
    }
}
