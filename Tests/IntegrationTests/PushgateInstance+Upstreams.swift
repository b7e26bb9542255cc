import MockUpstream

extension PushgateInstance {
    /// The environment that points pushgate at the repository's mock servers and trusts their
    /// test CA: `sandbox` defaults to the production mock, so both environments reach it. The
    /// mock push service's origin is the one Web Push endpoint listed (a loopback address is
    /// allowed only because it is listed itself).
    static func upstreams(
        apns: MockAPNs?, sandbox: MockAPNs? = nil, fcm: MockFCM? = nil, webPush: MockWebPush? = nil
    ) -> [String: String] {
        var environment = ["PUSHGATE_CA_FILE": MockFixtures.caFile]
        if let webPush { environment["PUSHGATE_WEBPUSH_ENDPOINTS"] = webPush.baseURL }
        if let apns { environment["PUSHGATE_APNS_URL"] = apns.baseURL }
        if let apnsSandbox = sandbox ?? apns { environment["PUSHGATE_APNS_SANDBOX_URL"] = apnsSandbox.baseURL }
        if let fcm { environment["PUSHGATE_FCM_URL"] = fcm.baseURL }
        return environment
    }
}

extension PushgateInstance {
    /// `apps add` of an APNs app signing with the key the mock APNs trusts; `extra` adds options
    /// (`--topic`, `--push-type`, `--app-key`, …). A refusal fails the test's set-up.
    func addMockAPNsApp(id: String, _ extra: [String] = []) throws {
        let added = try cli(
            [
                "apps", "add", "--id", id, "--platform", "apns", "--team-id", MockFixtures.apnsTeamID,
                "--key-id", MockFixtures.apnsKeyID, "--key-file", MockFixtures.apnsKeyFile,
            ] + extra)
        guard added.status == 0 else { throw Failure("apps add \(id) failed: \(added.stderr)") }
    }

    /// `apps add` of a web app with a VAPID key made by the openssl tool, as an operator would.
    func addWebApp(id: String, subject: String = "mailto:ops@example.com", _ extra: [String] = []) throws {
        let keyFile = directory.appendingPathComponent("vapid-\(id).pem").path
        let generated = try run(
            "/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", keyFile])
        guard generated.status == 0 else { throw Failure("openssl genpkey failed: \(generated.stderr)") }
        let added = try cli(
            ["apps", "add", "--id", id, "--platform", "web", "--vapid-subject", subject, "--vapid-key-file", keyFile]
                + extra)
        guard added.status == 0 else { throw Failure("apps add \(id) failed: \(added.stderr)") }
    }

    /// `apps add` of an FCM app with a service account the mock FCM knows.
    func addMockFCMApp(id: String, fcm: MockFCM, _ extra: [String] = []) throws {
        let account = try fcm.writeServiceAccount(to: directory.appendingPathComponent("service-account-\(id).json"))
        let added = try cli(["apps", "add", "--id", id, "--platform", "fcm", "--service-account", account.path] + extra)
        guard added.status == 0 else { throw Failure("apps add \(id) failed: \(added.stderr)") }
    }
}
