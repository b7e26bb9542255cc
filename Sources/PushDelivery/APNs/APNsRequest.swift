import PushCore

/// Builds the provider API request for one push: `POST /3/device/<hex token>` with the headers
/// Apple reads. (developer.apple.com, "Sending notification requests to APNs".)
enum APNsRequest {
    /// The message's topic, else the app's, else the app id (which names the bundle id for
    /// most) made into the topic of the app's push type. A message of another push type keeps
    /// the app's topic: the device's token belongs to it (a PushKit token is no good for the
    /// bundle id's topic), so `pushgate send` names the topic when it changes the type.
    static func topic(_ message: APNsMessage, app: RegisteredApp) -> String {
        if let topic = message.topic ?? app.apnsTopic { return topic }
        return (app.apnsPushType ?? .alert).topic(bundleID: app.id.rawValue) ?? app.id.rawValue
    }

    /// The headers of `pushType`, the one `APNsClient` decided for the push: the message's
    /// priority and expiration, else the type's (`APNsPushType`: 0 for push-to-talk, else none).
    static func make(
        _ message: APNsMessage, pushType: APNsPushType, token: DeviceToken, app: RegisteredApp, sandbox: Bool,
        endpoints: APNsEndpoints, bearer: String?, identity: ClientIdentity?
    ) -> UpstreamRequest {
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(8)
        if let bearer { headers.append(HTTPHeader("authorization", "bearer \(bearer)")) }
        headers.append(HTTPHeader("apns-topic", topic(message, app: app)))
        headers.append(HTTPHeader("apns-push-type", pushType.rawValue))
        headers.append(HTTPHeader("apns-priority", String(message.priority ?? pushType.defaultPriority)))
        if let expiration = message.expiration ?? pushType.requiredExpiration {
            headers.append(HTTPHeader("apns-expiration", String(expiration)))
        }
        if let collapseID = message.collapseID { headers.append(HTTPHeader("apns-collapse-id", collapseID)) }
        if let id = message.id { headers.append(HTTPHeader("apns-id", id)) }
        headers.append(HTTPHeader("content-type", "application/json"))
        return UpstreamRequest(
            method: "POST", url: "\(endpoints.baseURL(sandbox: sandbox))/3/device/\(token.hex)", headers: headers,
            body: message.payload, clientIdentity: identity)
    }
}
