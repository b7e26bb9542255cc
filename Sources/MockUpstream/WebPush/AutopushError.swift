/// The error answers of the mock push service, in the JSON shape of Mozilla's autopush
/// (`code`, `errno`, `error`, `message`), so that clients meet what a real service says.
struct AutopushError: Error, Sendable, Equatable {
    let status: Int
    let errno: Int
    let message: String

    static func notFound(_ message: String) -> AutopushError { .init(status: 404, errno: 102, message: message) }
    static let gone = AutopushError(status: 410, errno: 103, message: "Request did not validate: subscription is gone")
    static func tooLarge(_ length: Int, limit: Int) -> AutopushError {
        .init(status: 413, errno: 104, message: "Body too large: \(length) bytes, the limit is \(limit)")
    }
    static func unauthorized(_ message: String) -> AutopushError { .init(status: 401, errno: 109, message: message) }
    static func badEncryption(_ message: String) -> AutopushError { .init(status: 400, errno: 110, message: message) }
    static let missingTTL = AutopushError(status: 400, errno: 111, message: "Missing TTL header")
    static func invalidHeader(_ message: String) -> AutopushError { .init(status: 400, errno: 112, message: message) }
    static let methodNotAllowed = AutopushError(status: 405, errno: 999, message: "Only POST is allowed")

    /// `error` is the status's reason phrase, as autopush writes it.
    var body: [UInt8] {
        let phrase: String
        switch status {
        case 400: phrase = "Bad Request"
        case 401: phrase = "Unauthorized"
        case 404: phrase = "Not Found"
        case 405: phrase = "Method Not Allowed"
        case 410: phrase = "Gone"
        case 413: phrase = "Payload Too Large"
        case 429: phrase = "Too Many Requests"
        default: phrase = "Error"
        }
        let escaped = message.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return Array(
            #"{"code":\#(status),"errno":\#(errno),"error":"\#(phrase)","message":"\#(escaped)","more_info":"https://mozilla-services.github.io/autopush-rs/errors.html"}"#
                .utf8)
    }
}
