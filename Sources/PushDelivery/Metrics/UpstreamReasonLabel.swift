/// Reasons as labels: the upstreams' documented reason words pass, anything else (a message,
/// a future reason, a misbehaving server's text) becomes `other`, so that what comes from
/// outside can never grow the number of series.
enum UpstreamReasonLabel {
    /// developer.apple.com, "Handling notification responses from APNs".
    static let apns: Set<String> = [
        "BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
        "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
        "MissingTopic", "PayloadEmpty", "TopicDisallowed", "BadCertificate", "BadCertificateEnvironment",
        "ExpiredProviderToken", "Forbidden", "InvalidProviderToken", "MissingProviderToken",
        "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadPath", "MethodNotAllowed", "ExpiredToken",
        "Unregistered", "PayloadTooLarge", "TooManyProviderTokenUpdates", "TooManyRequests",
        "InternalServerError", "ServiceUnavailable", "Shutdown",
    ]
    /// firebase.google.com, "ErrorCode" of FCM HTTP v1, and the gRPC statuses it answers with.
    static let fcm: Set<String> = [
        "UNSPECIFIED_ERROR", "INVALID_ARGUMENT", "UNREGISTERED", "SENDER_ID_MISMATCH", "QUOTA_EXCEEDED",
        "UNAVAILABLE", "INTERNAL", "THIRD_PARTY_AUTH_ERROR", "NOT_FOUND", "PERMISSION_DENIED", "UNAUTHENTICATED",
        "RESOURCE_EXHAUSTED",
    ]

    /// The words `WebPushVerdict` starts its reasons with (push services have no common codes).
    static let webPush = WebPushVerdict.reasonWords

    /// `reason` as a label: its first word (FCM's reasons read "CODE: message") when documented.
    static func bounded(_ reason: String) -> String {
        let word = String(reason.prefix { $0 != ":" && $0 != " " })
        return apns.contains(word) || fcm.contains(word) || webPush.contains(word) ? word : "other"
    }
}
