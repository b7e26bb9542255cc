/// FCM HTTP v1 error codes (the `errorCode` of a `google.firebase.fcm.v1.FcmError` detail), with
/// the HTTP status and canonical status Google pairs them with.
/// (firebase.google.com/docs/reference/fcm/rest/v1/ErrorCode)
public enum FCMErrorCode: String, Sendable, CaseIterable {
    case unspecifiedError = "UNSPECIFIED_ERROR"
    case invalidArgument = "INVALID_ARGUMENT"
    case unregistered = "UNREGISTERED"
    case senderIDMismatch = "SENDER_ID_MISMATCH"
    case quotaExceeded = "QUOTA_EXCEEDED"
    case unavailable = "UNAVAILABLE"
    case `internal` = "INTERNAL"
    case thirdPartyAuthError = "THIRD_PARTY_AUTH_ERROR"

    public var httpStatus: Int {
        switch self {
        case .unspecifiedError, .internal: return 500
        case .invalidArgument: return 400
        case .unregistered: return 404
        case .senderIDMismatch: return 403
        case .quotaExceeded: return 429
        case .unavailable: return 503
        case .thirdPartyAuthError: return 401
        }
    }

    /// The `error.status` (google.rpc.Code name) of the response.
    public var canonicalStatus: String {
        switch self {
        case .unregistered: return "NOT_FOUND"
        case .senderIDMismatch: return "PERMISSION_DENIED"
        case .quotaExceeded: return "RESOURCE_EXHAUSTED"
        case .thirdPartyAuthError: return "UNAUTHENTICATED"
        case .unspecifiedError: return "INTERNAL"
        default: return rawValue
        }
    }

    /// The `error.message` Google sends with it (wording from observed responses).
    var message: String {
        switch self {
        case .unspecifiedError, .internal: return "Internal error encountered."
        case .invalidArgument: return "The registration token is not a valid FCM registration token"
        case .unregistered: return "Requested entity was not found."
        case .senderIDMismatch: return "SenderId mismatch"
        case .quotaExceeded: return "Quota exceeded for sending messages to this device."
        case .unavailable: return "The service is currently unavailable."
        case .thirdPartyAuthError: return "Auth error from APNS or Web Push Service"
        }
    }
}
