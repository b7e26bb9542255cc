import PushCore

/// One push as a PBX asked for it, checked: the verb, where it goes, and the iOS 13+ fields.
struct Pnm2Push: Sendable, Equatable {
    var verb: Pnm2Verb
    var appID: AppID
    /// As the caller wrote it (base64 from the Token Reporter, hex, or an FCM token); nil when
    /// the push is addressed by `selector` alone.
    var deviceToken: String?
    var selector: String?
    var message: String?
    var badge: Int?
    /// Nil or empty: silent; `default`, or a bundled sound's file name.
    var sound: String?
    /// `UserDisplayName`, else `UserName`: the sender shown as the title.
    var sender: String?
    var contentType: String?
    /// The message's id (the fetch response's `sms_id`), so the app does not notify twice.
    var messageID: String?
    var threadID: String?
}
