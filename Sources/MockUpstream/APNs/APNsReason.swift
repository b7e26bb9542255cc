/// The `reason` strings APNs answers with, and the status each comes with.
/// (developer.apple.com: "Handling notification responses from APNs", response error strings.)
public enum APNsReason: String, Sendable, CaseIterable {
    case badCollapseId = "BadCollapseId"
    case badDeviceToken = "BadDeviceToken"
    case badExpirationDate = "BadExpirationDate"
    case badMessageId = "BadMessageId"
    case badPriority = "BadPriority"
    case badTopic = "BadTopic"
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    case duplicateHeaders = "DuplicateHeaders"
    case idleTimeout = "IdleTimeout"
    case invalidPushType = "InvalidPushType"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case payloadEmpty = "PayloadEmpty"
    case topicDisallowed = "TopicDisallowed"
    /// Not in Apple's table: the mock's answer to a body that is not a JSON object, which
    /// Apple documents no reason for. A client should treat it as any other 400.
    case badPayload = "BadPayload"
    case badCertificate = "BadCertificate"
    case badCertificateEnvironment = "BadCertificateEnvironment"
    case expiredProviderToken = "ExpiredProviderToken"
    case forbidden = "Forbidden"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case unrelatedKeyIdInToken = "UnrelatedKeyIdInToken"
    case badEnvironmentKeyIdInToken = "BadEnvironmentKeyIdInToken"
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case expiredToken = "ExpiredToken"
    case unregistered = "Unregistered"
    case payloadTooLarge = "PayloadTooLarge"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    case tooManyRequests = "TooManyRequests"
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"
    case shutdown = "Shutdown"

    /// The HTTP status Apple pairs with the reason.
    public var status: Int {
        switch self {
        case .badCollapseId, .badDeviceToken, .badExpirationDate, .badMessageId, .badPriority, .badTopic,
            .deviceTokenNotForTopic, .duplicateHeaders, .idleTimeout, .invalidPushType, .missingDeviceToken,
            .missingTopic, .payloadEmpty, .topicDisallowed, .badPayload:
            return 400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden, .invalidProviderToken,
            .missingProviderToken, .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken:
            return 403
        case .badPath: return 404
        case .methodNotAllowed: return 405
        case .expiredToken, .unregistered: return 410
        case .payloadTooLarge: return 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: return 429
        case .internalServerError: return 500
        case .serviceUnavailable, .shutdown: return 503
        }
    }
}
