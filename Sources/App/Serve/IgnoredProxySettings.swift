/// The proxy variables libcurl would read from the environment, which pushgate ignores: every
/// request it makes tells libcurl to use no proxy (docs/security.md, "Outgoing connections").
/// serve names the ones that are set, so that an operator who set one learns that it does
/// nothing rather than wonder why the proxy sees no traffic.
enum IgnoredProxySettings {
    /// libcurl's names, lower case first as it looks them up (`http_proxy` only in lower case).
    static let names = [
        "https_proxy", "HTTPS_PROXY", "http_proxy", "all_proxy", "ALL_PROXY",
    ]

    /// The variables among `names` that `environment` sets to something.
    static func set(in environment: [String: String]) -> [String] {
        names.filter { !(environment[$0] ?? "").isEmpty }
    }

    static func warning(for set: [String]) -> String? {
        guard !set.isEmpty else { return nil }
        return
            "the environment names a proxy (\(set.joined(separator: ", "))): pushgate ignores it and connects to APNs, FCM and Web Push services directly"
    }
}
