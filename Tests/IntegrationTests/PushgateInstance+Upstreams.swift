import MockUpstream

extension PushgateInstance {
    /// The environment that points pushgate at the repository's mock servers and trusts their
    /// test CA: `sandbox` defaults to the production mock, so both environments reach it.
    static func upstreams(apns: MockAPNs?, sandbox: MockAPNs? = nil, fcm: MockFCM? = nil) -> [String: String] {
        var environment = ["PUSHGATE_CA_FILE": MockFixtures.caFile]
        if let apns { environment["PUSHGATE_APNS_URL"] = apns.baseURL }
        if let apnsSandbox = sandbox ?? apns { environment["PUSHGATE_APNS_SANDBOX_URL"] = apnsSandbox.baseURL }
        if let fcm { environment["PUSHGATE_FCM_URL"] = fcm.baseURL }
        return environment
    }
}
