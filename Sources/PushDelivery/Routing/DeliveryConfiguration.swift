import PushCore

/// Where delivery sends pushes. App fills it from `PUSHGATE_APNS_URL`,
/// `PUSHGATE_APNS_SANDBOX_URL`, `PUSHGATE_FCM_URL` and `PUSHGATE_WEBPUSH_ENDPOINTS`; time-outs and trust belong to the
/// transport (`CurlEngineConfiguration`).
public struct DeliveryConfiguration: Sendable, Equatable {
    public var apns: APNsEndpoints
    /// FCM HTTP v1's base URL (the OAuth token URL comes from each service account).
    public var fcmURL: String
    /// The push services Web Push subscriptions may name (each endpoint is the subscriber's).
    public var webPushEndpoints: WebPushEndpointPolicy

    public init(
        apns: APNsEndpoints = APNsEndpoints(), fcmURL: String = "https://fcm.googleapis.com",
        webPushEndpoints: WebPushEndpointPolicy = .publicPushServices
    ) {
        self.apns = apns
        self.fcmURL = fcmURL
        self.webPushEndpoints = webPushEndpoints
    }
}
