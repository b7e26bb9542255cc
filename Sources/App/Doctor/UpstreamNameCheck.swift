import Foundation
import PushCore
import PushCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Whether this host can resolve the names of the upstreams its apps push to: APNs (production
/// and sandbox) for APNs apps, FCM and each service account's token endpoint for FCM apps.
/// Without DNS every push fails, while every other check (files, keys, nginx) is green; this
/// check asks DNS only, never the services (`doctor --online` tries the credentials).
struct UpstreamNameCheck {
    /// What a name is for, and the setting it comes from, for the finding's words.
    struct Upstream: Equatable {
        let host: String
        let purpose: String
    }

    let upstreams: [Upstream]
    /// Whether a name resolves; `getaddrinfo` unless a test says otherwise.
    var resolves: (String) -> Bool = UpstreamNameCheck.systemResolves

    func run() -> [DoctorFinding] {
        guard !upstreams.isEmpty else { return [] }
        var resolved: [String] = []
        var findings: [DoctorFinding] = []
        for upstream in upstreams {
            if resolves(upstream.host) {
                resolved.append(upstream.host)
            } else {
                // A warning, not a failure: DNS may be down for a while, and the store and
                // queued pushes are fine; but no push to it leaves until the name resolves.
                findings.append(
                    .warning(
                        "upstream",
                        "cannot resolve \(upstream.host) (\(upstream.purpose)): every push there fails until this "
                            + "host resolves it; check its DNS (`pushgate doctor --online` also tries each app's credentials)"
                    ))
            }
        }
        if !resolved.isEmpty {
            findings.insert(.ok("upstream", "these names resolve: \(resolved.joined(separator: ", "))"), at: 0)
        }
        return findings
    }

    private static func isAddressLiteral(_ host: String) -> Bool {
        host.hasPrefix("[") || host.allSatisfy { $0.isNumber || $0 == "." }
    }

    static func systemResolves(_ host: String) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, "443", &hints, &result)
        if let result { freeaddrinfo(result) }
        return status == 0
    }
}

extension UpstreamNameCheck {
    /// The upstreams `apps` push to under `configuration`, each name once, IP literals left out.
    init(apps: [RegisteredApp], configuration: Configuration) {
        var found: [Upstream] = []
        func add(_ url: String, _ purpose: String) {
            guard let host = URLComponents(string: url)?.host, !host.isEmpty, !Self.isAddressLiteral(host),
                !found.contains(where: { $0.host == host })
            else { return }
            found.append(Upstream(host: host, purpose: purpose))
        }
        if apps.contains(where: { $0.platform == .apns }) {
            add(configuration.apnsURL, "APNs, PUSHGATE_APNS_URL")
            add(configuration.apnsSandboxURL, "the APNs sandbox, PUSHGATE_APNS_SANDBOX_URL")
        }
        for app in apps {
            guard case .fcmServiceAccount(let json, _) = app.credentials else { continue }
            add(configuration.fcmURL, "FCM, PUSHGATE_FCM_URL")
            if let account = try? ServiceAccount(json: json) {
                add(account.tokenURI, "the token endpoint of \(app.id)'s service account")
            }
        }
        self.init(upstreams: found)
    }
}
