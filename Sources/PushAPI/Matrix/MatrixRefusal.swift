import PushCore

/// A notify refused whole, in the Matrix error shape (`{"errcode", "error"}`, the spec's
/// standard error response) with the status Sygnal answers: 400 for a body it cannot use, 403
/// for a caller outside `PUSHGATE_MATRIX_HOMESERVERS`, 404/405 for another path or method, 502
/// when an upstream refused or failed a push for a reason that is not the pushkey's.
/// A homeserver retries any non-2xx answer with backoff, so 400 is kept for real garbage.
struct MatrixRefusal: DialectError, Equatable {
    let status: Int
    let errcode: String
    let message: String
    var headers: [(name: String, value: String)] = []

    static func == (lhs: MatrixRefusal, rhs: MatrixRefusal) -> Bool {
        lhs.status == rhs.status && lhs.errcode == rhs.errcode && lhs.message == rhs.message
    }

    var response: Response {
        let body: JSONValue = .object(["errcode": .string(errcode), "error": .string(message)])
        return .json(status, body.encoded(), headers: headers)
    }

    /// Sygnal's words for a body that is not JSON.
    static let notJSON = MatrixRefusal(status: 400, errcode: "M_NOT_JSON", message: "Expected JSON request body")

    static func badJSON(_ message: String) -> MatrixRefusal {
        MatrixRefusal(status: 400, errcode: "M_BAD_JSON", message: message)
    }

    static let noDevices = MatrixRefusal(status: 400, errcode: "M_BAD_JSON", message: "No devices in notification")

    static func forbidden(_ address: String) -> MatrixRefusal {
        MatrixRefusal(
            status: 403, errcode: "M_FORBIDDEN",
            message: "\(address) is not a homeserver this push gateway serves (PUSHGATE_MATRIX_HOMESERVERS)")
    }

    static func unrecognizedPath(_ path: String) -> MatrixRefusal {
        MatrixRefusal(
            status: 404, errcode: "M_UNRECOGNIZED",
            message: "no push gateway endpoint at \(path): use POST /_matrix/push/v1/notify")
    }

    static let unrecognizedMethod = MatrixRefusal(
        status: 405, errcode: "M_UNRECOGNIZED", message: "use POST", headers: [("Allow", "POST")])

    /// An upstream refused or failed a push, not for its pushkey: the homeserver tries the
    /// notify again later (Sygnal's NotificationDispatchException).
    static func upstreamFailed(_ reason: String) -> MatrixRefusal {
        MatrixRefusal(status: 502, errcode: "M_UNKNOWN", message: "push not delivered: \(reason)")
    }
}

/// Why a device's pushkey is named in `rejected`: the homeserver then deletes its pusher and
/// never pushes to it again, so only for a pushkey that can never work.
enum MatrixRejection: Error, Sendable, Equatable, CustomStringConvertible {
    /// No registered app has this id (Sygnal: no pushkin serves it).
    case unknownApp
    /// The app exists but its operator has not opened it to Matrix (`apps add --matrix`). The
    /// homeserver is told exactly what it is told of an unknown app; the words are the operator's.
    case closedApp
    /// `data.default_payload` is there and not an object (Sygnal rejects it too).
    case defaultPayloadNotAnObject
    /// The pushkey cannot be a token of the app's platform (APNs hex or base64, an FCM
    /// registration token, a Web Push subscription's p256dh with `data.endpoint` and `auth`).
    case malformedPushkey(String)
    /// The upstream said the token is dead for good (APNs 410, `BadDeviceToken`,
    /// `DeviceTokenNotForTopic`, `TopicDisallowed`; FCM `UNREGISTERED`/404; Web Push 404/410).
    case dead(String)

    var description: String {
        switch self {
        case .unknownApp: return "no registered app has this app_id"
        case .closedApp: return "the app is not open to Matrix (pushgate apps add --replace … --matrix)"
        case .defaultPayloadNotAnObject: return "data.default_payload is not an object"
        case .malformedPushkey(let reason): return reason
        case .dead(let reason): return "the upstream reports the token dead: \(reason)"
        }
    }
}
