import PushCore

/// Builds the provider API request for one push: `POST /3/device/<hex token>` with the headers
/// Apple reads. (developer.apple.com, "Sending notification requests to APNs".)
enum APNsRequest {
    /// Apple's payload limits: 4 KB, 5 KB for VoIP pushes.
    static func payloadLimit(for pushType: APNsPushType) -> Int {
        pushType == .voip ? 5120 : 4096
    }

    /// The push type a message goes out with: its own, else the app's, else alert.
    static func pushType(_ message: APNsMessage, app: RegisteredApp) -> APNsPushType {
        message.pushType ?? app.apnsPushType ?? .alert
    }

    /// Background pushes must be sent at priority 5; everything else defaults to 10 (at once).
    static func priority(_ message: APNsMessage, pushType: APNsPushType) -> Int {
        message.priority ?? (pushType == .background ? 5 : 10)
    }

    /// The message's topic, else the app's, else the app id (which names the bundle id for most).
    static func topic(_ message: APNsMessage, app: RegisteredApp) -> String {
        message.topic ?? app.apnsTopic ?? app.id.rawValue
    }

    static func make(
        _ message: APNsMessage, token: DeviceToken, app: RegisteredApp, sandbox: Bool, endpoints: APNsEndpoints,
        bearer: String?, identity: ClientIdentity?
    ) -> UpstreamRequest {
        let pushType = pushType(message, app: app)
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(8)
        if let bearer { headers.append(HTTPHeader("authorization", "bearer \(bearer)")) }
        headers.append(HTTPHeader("apns-topic", topic(message, app: app)))
        headers.append(HTTPHeader("apns-push-type", pushType.rawValue))
        headers.append(HTTPHeader("apns-priority", String(priority(message, pushType: pushType))))
        if let expiration = message.expiration { headers.append(HTTPHeader("apns-expiration", String(expiration))) }
        if let collapseID = message.collapseID { headers.append(HTTPHeader("apns-collapse-id", collapseID)) }
        if let id = message.id { headers.append(HTTPHeader("apns-id", id)) }
        headers.append(HTTPHeader("content-type", "application/json"))
        return UpstreamRequest(
            method: "POST", url: "\(endpoints.baseURL(sandbox: sandbox))/3/device/\(token.hex)", headers: headers,
            body: message.payload, clientIdentity: identity)
    }
}
