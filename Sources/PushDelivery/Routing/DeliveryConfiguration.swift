/// Where delivery sends pushes. App fills it from `PUSHGATE_APNS_URL`,
/// `PUSHGATE_APNS_SANDBOX_URL` and `PUSHGATE_FCM_URL`; time-outs and trust belong to the
/// transport (`CurlEngineConfiguration`).
public struct DeliveryConfiguration: Sendable, Equatable {
    public var apns: APNsEndpoints
    /// FCM HTTP v1's base URL (the OAuth token URL comes from each service account).
    public var fcmURL: String

    public init(apns: APNsEndpoints = APNsEndpoints(), fcmURL: String = "https://fcm.googleapis.com") {
        self.apns = apns
        self.fcmURL = fcmURL
    }
}
