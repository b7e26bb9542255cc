/// What the mock FCM answers for one registration token once a send is otherwise valid: the
/// error code, and for `QUOTA_EXCEEDED`/`UNAVAILABLE` an optional `retry-after` (seconds).
public struct FCMTokenOutcome: Sendable, Equatable {
    public var errorCode: FCMErrorCode
    public var retryAfter: Int?

    public init(_ errorCode: FCMErrorCode, retryAfter: Int? = nil) {
        self.errorCode = errorCode
        self.retryAfter = retryAfter
    }

    public static let unregistered = FCMTokenOutcome(.unregistered)
    public static let senderIDMismatch = FCMTokenOutcome(.senderIDMismatch)
    public static let invalidArgument = FCMTokenOutcome(.invalidArgument)
    public static let `internal` = FCMTokenOutcome(.internal)
    public static func quotaExceeded(retryAfter: Int? = nil) -> FCMTokenOutcome {
        FCMTokenOutcome(.quotaExceeded, retryAfter: retryAfter)
    }
    public static func unavailable(retryAfter: Int? = nil) -> FCMTokenOutcome {
        FCMTokenOutcome(.unavailable, retryAfter: retryAfter)
    }
}
