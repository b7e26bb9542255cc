import PushCore

/// A publish body: `{"apns": {…the whole APNs payload…}, "fcm": {…FCM v1 message fields…}}`,
/// at least one of the two. Subscribers on APNs get the first, those on FCM the second.
struct TopicPush: Equatable {
    var apns: APNsMessage?
    var fcm: FCMMessage?

    /// APNs refuses larger payloads (4 KB, 5 KB for VoIP): refusing here names the fault
    /// to the publisher instead of leaving one dead letter per subscriber.
    /// (developer.apple.com, "Sending notification requests to APNs".)
    static let maximumAPNsPayload = 5120
    /// FCM v1 sets the target itself: the bridge's subscribers are the target.
    static let targetFields: Set<String> = ["token", "topic", "condition", "name"]

    init(_ object: [String: JSONValue]) throws(BridgeError) {
        try BridgeRequestBody.refuseUnknown(object, known: ["apns", "fcm"], in: nil)
        if let value = object["apns"], !value.isNull {
            guard value.objectValue != nil else { throw .notAnObject("apns") }
            let payload = value.encoded()
            guard payload.count <= Self.maximumAPNsPayload else {
                throw .invalidField("apns", "is \(payload.count) bytes: APNs takes at most \(Self.maximumAPNsPayload)")
            }
            apns = APNsMessage(payload: payload)
        }
        if let value = object["fcm"], !value.isNull {
            guard let fields = value.objectValue else { throw .notAnObject("fcm") }
            if let target = fields.keys.sorted().first(where: Self.targetFields.contains) {
                throw .invalidField("fcm.\(target)", "is set by the bridge: each subscriber is the target")
            }
            if let data = fields["data"] {
                // FCM v1 refuses data values that are not strings; say so before fan-out.
                guard let entries = data.objectValue else { throw .notAnObject("fcm.data") }
                if let key = entries.keys.sorted().first(where: { entries[$0]?.stringValue == nil }) {
                    throw .wrongType(field: "fcm.data.\(key)", expected: "a string")
                }
            }
            fcm = FCMMessage(fields: fields)
        }
        guard apns != nil || fcm != nil else { throw .missing("apns or fcm") }
    }
}
