import PushCore
import XCTest

@testable import App

/// The doctor asks DNS for the names of the upstreams the registered apps push to, and warns
/// about each one that does not resolve: the check offline doctor lacked while every push
/// failed for want of DNS.
final class UpstreamNameCheckTests: XCTestCase {
    private let apns = RegisteredApp(
        id: AppID("com.example.ios")!, credentials: .apnsToken(teamID: "T", keyID: "K", privateKeyPEM: "-"))
    private let web = RegisteredApp(
        id: AppID("com.example.web")!, credentials: .webPush(vapidPrivateKeyPEM: "-", subject: "mailto:a@b"))

    /// The repository's test service account, with Google's token endpoint.
    private func fcm() throws -> RegisteredApp {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("PushCryptoTests/Fixtures/service-account.json")
        let json = try String(contentsOf: file, encoding: .utf8)
            .replacingOccurrences(of: "https://127.0.0.1/token", with: "https://oauth2.googleapis.com/token")
        return RegisteredApp(
            id: AppID("com.example.android")!, credentials: .fcmServiceAccount(json: json, projectID: "p"))
    }

    func testNamesAreThoseOfTheRegisteredAppsPlatformsEachOnce() throws {
        let configuration = Configuration()
        XCTAssertEqual(UpstreamNameCheck(apps: [web], configuration: configuration).upstreams, [])
        XCTAssertEqual(
            UpstreamNameCheck(apps: [apns, apns], configuration: configuration).upstreams.map(\.host),
            ["api.push.apple.com", "api.sandbox.push.apple.com"])
        var local = configuration
        local.apnsURL = "https://127.0.0.1:8443"
        local.apnsSandboxURL = "https://127.0.0.1:8443"
        local.fcmURL = "https://[::1]:9443"
        XCTAssertEqual(
            UpstreamNameCheck(apps: [apns, try fcm()], configuration: local)
                .upstreams.map(\.host),
            ["oauth2.googleapis.com"], "address literals need no DNS")
    }

    func testEachNameThatDoesNotResolveIsAWarningNamingItsSetting() {
        let check = UpstreamNameCheck(apps: [apns], configuration: Configuration())
        let findings = UpstreamNameCheck(upstreams: check.upstreams, resolves: { $0 == "api.push.apple.com" }).run()
        XCTAssertEqual(findings.map(\.verdict), [.ok, .warning])
        XCTAssertEqual(findings.first?.message, "these names resolve: api.push.apple.com")
        XCTAssertTrue(
            findings.last?.message.hasPrefix(
                "cannot resolve api.sandbox.push.apple.com (the APNs sandbox, PUSHGATE_APNS_SANDBOX_URL)") ?? false,
            "\(findings)")
        XCTAssertFalse(findings.hasProblem, "DNS may be down for a while: a warning")
        XCTAssertEqual(
            UpstreamNameCheck(upstreams: check.upstreams, resolves: { _ in true }).run().map(\.verdict), [.ok])
    }

    func testTheSystemResolverAnswersForLoopbackAndNotForAnInvalidName() {
        XCTAssertTrue(UpstreamNameCheck.systemResolves("localhost"))
        XCTAssertFalse(UpstreamNameCheck.systemResolves("name.invalid"), "RFC 6761: .invalid never resolves")
    }
}
