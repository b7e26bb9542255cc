import PushCore

/// One `POST /api/push` body after the document's rules for each field.
enum PushChange: Equatable {
    case addRegistrationID(String)
    case deleteRegistrationID(String)
    case addAPNsToken(CospaceAPNsRegistration)
    case deleteAPNsToken(DeviceToken)

    /// Fields are checked in the order system, action, then the system's own; each refusal
    /// is the status value of the first field at fault. Fields of the other system, and
    /// `sandbox`/`application_id`/`apns_topic` on a delete, are ignored as the document
    /// says they are "only for" the other case.
    init(_ body: [String: JSONValue]) throws(CospaceError) {
        guard case .string(let system)? = body["system"], system == "gcm" || system == "apns" else {
            throw .invalid("invalid-system")
        }
        guard case .string(let action)? = body["action"], action == "add" || action == "delete" else {
            throw .invalid("invalid-action")
        }
        if system == "gcm" {
            let id = try Self.registrationID(body["registration_id"])
            self = action == "add" ? .addRegistrationID(id) : .deleteRegistrationID(id)
            return
        }
        let (token, reported) = try Self.deviceToken(body["device_token"])
        guard action == "add" else {
            self = .deleteAPNsToken(token)
            return
        }
        guard case .string(let applicationID)? = body["application_id"], Self.isApplicationID(applicationID) else {
            throw .invalid("invalid-appid")
        }
        var registration = CospaceAPNsRegistration(
            token: token, reportedToken: reported, applicationID: applicationID, sandbox: nil, apnsTopic: "")
        switch body["apns_topic"] {
        case nil, .null?:
            registration.apnsTopic = registration.bundleID
        case .string(let topic)? where Self.isTopic(topic):
            registration.apnsTopic = topic
        default:
            throw .invalid("invalid-apns-topic")
        }
        switch body["sandbox"] {
        case nil, .null?: break
        case .bool(let sandbox)?: registration.sandbox = sandbox
        default: throw .invalid("invalid-sandbox")
        }
        self = .addAPNsToken(registration)
    }

    /// `^.{10,250}$`: 10 to 250 characters other than a line feed (what `.` matches), and no
    /// other control character either (Unicode's general category Cc: NUL, CR, tab, DEL, C1):
    /// FCM refuses such a token, so each push to it would end as a dead letter.
    private static func registrationID(_ value: JSONValue?) throws(CospaceError) -> String {
        guard case .string(let id)? = value else { throw .invalid("invalid-registration-id") }
        let scalars = id.unicodeScalars
        let control = scalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
        guard (10...250).contains(scalars.count), !control else { throw .invalid("invalid-registration-id") }
        return id
    }

    /// `^[0-9a-fA-F]{64}$`.
    private static func deviceToken(_ value: JSONValue?) throws(CospaceError) -> (DeviceToken, String) {
        guard case .string(let text)? = value, text.utf8.count == 64, let token = DeviceToken.fromHex(text) else {
            throw .invalid("invalid-device-token")
        }
        return (token, text)
    }

    /// Ten letters or digits (the team id), a dot, then `[a-zA-Z0-9.-]{5,100}` (the bundle id).
    static func isApplicationID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count >= 16, bytes[10] == UInt8(ascii: "."), bytes[..<10].allSatisfy(\.isASCIIAlphanumeric) else {
            return false
        }
        return isTopic(String(decoding: bytes[11...], as: UTF8.self))
    }

    /// `^[a-zA-Z0-9.-]{5,100}$`.
    static func isTopic(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return (5...100).contains(bytes.count)
            && bytes.allSatisfy { $0.isASCIIAlphanumeric || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }
}
