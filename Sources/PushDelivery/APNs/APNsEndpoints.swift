/// Where APNs requests go: `PUSHGATE_APNS_URL` and `PUSHGATE_APNS_SANDBOX_URL`.
public struct APNsEndpoints: Sendable, Equatable {
    public var production: String
    public var sandbox: String

    public init(production: String = "https://api.push.apple.com", sandbox: String = "https://api.sandbox.push.apple.com") {
        self.production = production
        self.sandbox = sandbox
    }

    public func baseURL(sandbox useSandbox: Bool) -> String {
        let base = useSandbox ? sandbox : production
        return base.hasSuffix("/") ? String(base.dropLast()) : base
    }
}
