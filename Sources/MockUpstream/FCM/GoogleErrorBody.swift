import PushCore

/// Google's JSON error shapes: the API error of `messages:send` and the OAuth error of the
/// token endpoint.
/// (firebase.google.com/docs/cloud-messaging/error-codes; RFC 6749 §5.2 as Google applies it.)
enum GoogleErrorBody {
    /// `{"error": {"code", "message", "status", "details": [...]}}`. `fcmErrorCode` adds the
    /// `google.firebase.fcm.v1.FcmError` detail; `fieldViolation` a `google.rpc.BadRequest` one.
    static func apiError(
        status: Int, message: String, canonicalStatus: String, fcmErrorCode: String? = nil,
        fieldViolation: (field: String, description: String)? = nil
    ) -> [UInt8] {
        var details: [JSONValue] = []
        if let fcmErrorCode {
            details.append(
                .object([
                    "@type": .string("type.googleapis.com/google.firebase.fcm.v1.FcmError"),
                    "errorCode": .string(fcmErrorCode),
                ]))
        }
        if let fieldViolation {
            details.append(
                .object([
                    "@type": .string("type.googleapis.com/google.rpc.BadRequest"),
                    "fieldViolations": .array([
                        .object([
                            "field": .string(fieldViolation.field), "description": .string(fieldViolation.description),
                        ])
                    ]),
                ]))
        }
        var error: [String: JSONValue] = [
            "code": .number(Double(status)), "message": .string(message), "status": .string(canonicalStatus),
        ]
        if !details.isEmpty { error["details"] = .array(details) }
        return JSONValue.object(["error": .object(error)]).encoded()
    }

    /// The API error for an FCM error code.
    static func apiError(_ code: FCMErrorCode) -> [UInt8] {
        apiError(
            status: code.httpStatus, message: code.message, canonicalStatus: code.canonicalStatus,
            fcmErrorCode: code.rawValue)
    }

    /// The canonical status Google uses for an HTTP status, for injected faults.
    static func canonicalStatus(forHTTPStatus status: Int) -> String {
        switch status {
        case 400: return "INVALID_ARGUMENT"
        case 401: return "UNAUTHENTICATED"
        case 403: return "PERMISSION_DENIED"
        case 404: return "NOT_FOUND"
        case 409: return "ABORTED"
        case 429: return "RESOURCE_EXHAUSTED"
        case 500: return "INTERNAL"
        case 503: return "UNAVAILABLE"
        case 504: return "DEADLINE_EXCEEDED"
        default: return "UNKNOWN"
        }
    }

    /// `{"error": "invalid_grant", "error_description": "…"}` of the OAuth token endpoint.
    static func oauthError(_ error: String, description: String) -> [UInt8] {
        JSONValue.object(["error": .string(error), "error_description": .string(description)]).encoded()
    }
}
