import Foundation
import PushCore

/// Builds the HTTP v1 `messages:send` request for one push.
/// (firebase.google.com, "REST Resource: projects.messages" and "method: projects.messages.send".)
enum FCMRequest {
    static func url(baseURL: String, projectID: String) -> String {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return "\(base)/v1/projects/\(projectID)/messages:send"
    }

    /// `{"message": {…fields, "token": token}}`, keys sorted. The token wins over any `token`,
    /// `topic` or `condition` a caller put in the fields: a push goes to the device it names.
    static func body(_ message: FCMMessage, token: String) -> [UInt8] {
        var fields = message.fields
        fields["topic"] = nil
        fields["condition"] = nil
        fields["token"] = .string(token)
        return JSONValue.object(["message": .object(fields)]).encoded()
    }

    static func make(url: String, body: [UInt8], accessToken: String) -> UpstreamRequest {
        UpstreamRequest(
            method: "POST", url: url,
            headers: [
                HTTPHeader("authorization", "Bearer \(accessToken)"),
                HTTPHeader("content-type", "application/json; charset=UTF-8"),
            ],
            body: body)
    }
}
