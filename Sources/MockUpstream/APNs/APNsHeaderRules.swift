/// The request checks of Apple's provider API that need nothing but the request itself: path,
/// token, header values, payload.
/// (developer.apple.com: "Sending notification requests to APNs", header fields and payload size.)
enum APNsHeaderRules {
    /// `apns-push-type` values Apple lists.
    static let pushTypes: Set<String> = [
        "alert", "background", "voip", "complication", "fileprovider", "mdm", "liveactivity", "location",
        "pushtotalk", "widgets", "controls",
    ]

    /// What the topic of each push type must end with: Apple's "the apns-topic header field must
    /// use your app's bundle ID with … appended". alert and background go to the bundle id
    /// itself and mdm to the MDM certificate's topic, so they have no suffix to check. Written
    /// here apart from pushgate's own table (`APNsPushType`): the mock states Apple's rules
    /// independently, so a mistake in pushgate's shows up as a refusal.
    static let topicSuffixes: [String: String] = [
        "location": ".location-query", "voip": ".voip", "complication": ".complication",
        "fileprovider": ".pushkit.fileprovider", "liveactivity": ".push-type.liveactivity", "pushtotalk": ".voip-ptt",
        "widgets": ".push-type.widgets", "controls": ".push-type.controls",
    ]

    /// Headers that may appear once only (`DuplicateHeaders`).
    static let singleHeaders = [
        "authorization", "apns-topic", "apns-push-type", "apns-priority", "apns-expiration", "apns-collapse-id",
        "apns-id",
    ]

    static let devicePathPrefix = "/3/device/"

    /// 4 KB for every push, 5 KB for VoIP ("Generating a remote notification", payload size).
    static func payloadLimit(pushType: String?) -> Int {
        pushType == "voip" ? 5120 : 4096
    }

    enum DevicePath: Equatable {
        case token(String)
        case refused(APNsReason)
    }

    /// The token of `/3/device/<token>`, or the reason the path is refused.
    static func deviceToken(inPath path: String) -> DevicePath {
        guard path.hasPrefix(devicePathPrefix) else { return .refused(.badPath) }
        let token = path.dropFirst(devicePathPrefix.count)
        if token.isEmpty { return .refused(.missingDeviceToken) }
        if token.utf8.contains(UInt8(ascii: "/")) || token.utf8.contains(UInt8(ascii: "?")) {
            return .refused(.badPath)
        }
        return .token(String(token))
    }

    /// Apple's tokens are hex (32 bytes today, longer allowed), never anything else.
    static func isHexToken(_ token: String) -> Bool {
        let utf8 = token.utf8
        return utf8.count % 2 == 0 && utf8.count >= 16 && utf8.count <= 400
            && utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) || (65...70).contains($0) }
    }

    /// The first header-value problem, checking in the order Apple's table lists them.
    static func headerProblem(_ headers: MockHeaders) -> APNsReason? {
        if singleHeaders.contains(where: { headers.count(of: $0) > 1 }) { return .duplicateHeaders }
        let pushType = headers["apns-push-type"]
        if let pushType, !pushTypes.contains(pushType) { return .invalidPushType }
        if let priority = headers["apns-priority"] {
            // 10 is refused for background pushes ("Pushing background updates to your App").
            guard ["1", "5", "10"].contains(priority), !(priority == "10" && pushType == "background") else {
                return .badPriority
            }
        }
        // A push-to-talk push must be immediate: priority 10 and expiration 0 ("Creating a
        // Push to Talk app"). Apple documents no reason for either; these are the nearest.
        if pushType == "pushtotalk", headers["apns-priority"] != "10" { return .badPriority }
        if let expiration = headers["apns-expiration"] {
            guard !expiration.isEmpty, expiration.utf8.allSatisfy({ (48...57).contains($0) }) else {
                return .badExpirationDate
            }
        }
        if pushType == "pushtotalk", headers["apns-expiration"] != "0" { return .badExpirationDate }
        if let collapseID = headers["apns-collapse-id"], collapseID.utf8.count > 64 { return .badCollapseId }
        if let id = headers["apns-id"], !isCanonicalUUID(id) { return .badMessageId }
        return nil
    }

    /// A topic that does not end with its push type's suffix (`topicSuffixes`). Apple documents
    /// no reason for the mismatch; the mock answers `InvalidPushType`, which a client treats as
    /// any other 400 and which, unlike `DeviceTokenNotForTopic`, does not cost the token.
    static func pushTypeProblem(pushType: String?, topic: String) -> APNsReason? {
        guard let pushType, let suffix = topicSuffixes[pushType] else { return nil }
        return topic.hasSuffix(suffix) && topic.utf8.count > suffix.utf8.count ? nil : .invalidPushType
    }

    /// `8-4-4-4-12` hex digits, either case.
    static func isCanonicalUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                if byte != UInt8(ascii: "-") { return false }
            } else if !((48...57).contains(byte) || (97...102).contains(byte) || (65...70).contains(byte)) {
                return false
            }
        }
        return true
    }

    /// Empty, too large, or not a JSON object: the payload's problem, if any.
    static func payloadProblem(_ body: [UInt8], truncated: Bool, pushType: String?, validatesJSON: Bool) -> APNsReason?
    {
        if body.isEmpty { return .payloadEmpty }
        if truncated || body.count > payloadLimit(pushType: pushType) { return .payloadTooLarge }
        if validatesJSON, !JSONObjectSyntax.isObject(body) { return .badPayload }
        return nil
    }
}
