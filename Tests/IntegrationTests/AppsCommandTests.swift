import Foundation
import XCTest

/// `pushgate apps …` and `tokens list` as an operator runs them, on a fresh database.
final class AppsCommandTests: XCTestCase {
    var pushgate: PushgateInstance!
    let fixtures = PushgateInstance.repository.appendingPathComponent("Tests/PushCryptoTests/Fixtures")

    override func setUpWithError() throws {
        pushgate = try PushgateInstance()
    }

    override func tearDown() {
        pushgate = nil
        super.tearDown()
    }

    private func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    private func addAPNs(_ extra: [String] = [], key: String = "AuthKey_TEST123456.p8") throws -> PushgateInstance.Output {
        try pushgate.cli(
            ["apps", "add", "--id", "com.example.app", "--platform", "apns", "--team-id", "ABCDE12345", "--key-id", "TEST123456",
             "--key-file", fixture(key)] + extra)
    }

    func testRegisterListAndRemoveAnAPNsAndAnFCMApp() throws {
        let apns = try addAPNs(["--topic", "com.example.app.voip", "--push-type", "voip", "--sandbox", "--app-key", "beams-key-1"])
        XCTAssertEqual(apns.status, 0, apns.stderr)
        let fcm = try pushgate.cli(["apps", "add", "--id", "com.example.android", "--platform", "fcm", "--service-account", fixture("service-account.json")])
        XCTAssertEqual(fcm.status, 0, fcm.stderr)

        let list = try pushgate.cli(["apps", "list"])
        XCTAssertEqual(list.status, 0)
        XCTAssertTrue(list.stdout.contains("com.example.app"), list.stdout)
        XCTAssertTrue(list.stdout.contains("p8 team=ABCDE12345 key=TEST123456"), list.stdout)
        XCTAssertTrue(list.stdout.contains("com.example.app.voip"), list.stdout)
        XCTAssertTrue(list.stdout.contains("voip"), list.stdout)
        XCTAssertTrue(list.stdout.contains("service-account project="), list.stdout)
        XCTAssertFalse(list.stdout.contains("PRIVATE KEY"), "no secrets in the listing")

        let duplicate = try addAPNs()
        XCTAssertEqual(duplicate.status, 1)
        XCTAssertTrue(duplicate.stderr.contains("already registered"), duplicate.stderr)
        XCTAssertEqual(try addAPNs(["--replace"]).status, 0)

        XCTAssertEqual(try pushgate.cli(["apps", "remove", "--id", "com.example.android"]).status, 0)
        let again = try pushgate.cli(["apps", "remove", "--id", "com.example.android"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("no app with id com.example.android"), again.stderr)
    }

    func testOneAppKeyServesAnAPNsAndAnFCMAppAndNoSecondOfAPlatform() throws {
        let apns = try addAPNs(["--app-key", "product-key"])
        XCTAssertEqual(apns.status, 0, apns.stderr)
        let fcm = try pushgate.cli(
            ["apps", "add", "--id", "com.example.android", "--platform", "fcm", "--service-account", fixture("service-account.json"),
             "--app-key", "product-key"])
        XCTAssertEqual(fcm.status, 0, fcm.stderr)
        let list = try pushgate.cli(["apps", "list"]).stdout
        XCTAssertEqual(list.components(separatedBy: "product-key").count - 1, 2, list)

        let secondAPNs = try pushgate.cli(
            ["apps", "add", "--id", "com.example.app2", "--platform", "apns", "--team-id", "ABCDE12345", "--key-id", "TEST123456",
             "--key-file", fixture("AuthKey_TEST123456.p8"), "--app-key", "product-key"])
        XCTAssertEqual(secondAPNs.status, 1)
        XCTAssertTrue(
            secondAPNs.stderr.contains(
                "app key product-key already has an apns app, com.example.app: a Beams key serves one APNs app and one FCM app at most"),
            secondAPNs.stderr)
        let secondFCM = try pushgate.cli(
            ["apps", "add", "--id", "com.example.android2", "--platform", "fcm", "--service-account", fixture("service-account.json"),
             "--app-key", "product-key"])
        XCTAssertEqual(secondFCM.status, 1)
        XCTAssertTrue(secondFCM.stderr.contains("app key product-key already has an fcm app, com.example.android"), secondFCM.stderr)
        let after = try pushgate.cli(["apps", "list"]).stdout
        XCTAssertFalse(after.contains("com.example.app2") || after.contains("com.example.android2"), after)

        // Taking the key off the first APNs app (a replace without --app-key) frees it for another.
        XCTAssertEqual(try addAPNs(["--replace"]).status, 0)
        let moved = try pushgate.cli(
            ["apps", "add", "--id", "com.example.app2", "--platform", "apns", "--team-id", "ABCDE12345", "--key-id", "TEST123456",
             "--key-file", fixture("AuthKey_TEST123456.p8"), "--app-key", "product-key"])
        XCTAssertEqual(moved.status, 0, moved.stderr)
    }

    func testBadCredentialsAreRefusedWithTheReason() throws {
        let cases: [([String], String)] = [
            (["--key-file", fixture("rsa-2048.pem")], "not an EC key"),
            (["--key-file", fixture("ec-p384.p8")], "P-256"),
            (["--key-file", fixture("not-pem.txt")], "not PEM"),
            (["--key-file", fixture("missing.p8")], "cannot read"),
        ]
        for (extra, message) in cases {
            let output = try pushgate.cli(
                ["apps", "add", "--id", "a.b", "--platform", "apns", "--team-id", "ABCDE12345", "--key-id", "TEST123456"] + extra)
            XCTAssertEqual(output.status, 1, extra.joined(separator: " "))
            XCTAssertTrue(output.stderr.contains(message), "expected \(message) in \(output.stderr)")
        }
        let noKey = try pushgate.cli(["apps", "add", "--id", "a.b", "--platform", "fcm", "--service-account", fixture("service-account-no-private-key.json")])
        XCTAssertEqual(noKey.status, 1)
        XCTAssertTrue(noKey.stderr.contains("private_key"), noKey.stderr)
        let badTeam = try pushgate.cli(
            ["apps", "add", "--id", "a.b", "--platform", "apns", "--team-id", "abc", "--key-id", "TEST123456", "--key-file", fixture("AuthKey_TEST123456.p8")])
        XCTAssertTrue(badTeam.stderr.contains("--team-id abc is not an Apple id"), badTeam.stderr)
        let badPlatform = try pushgate.cli(["apps", "add", "--id", "a.b", "--platform", "wns"])
        XCTAssertTrue(badPlatform.stderr.contains("--platform must be apns, fcm or web"), badPlatform.stderr)
        XCTAssertEqual(try pushgate.cli(["apps", "list"]).stdout, "no apps registered\n")
    }

    func testAWebAppGetsAVAPIDKeyThatListCheckAndDoctorShow() throws {
        let added = try pushgate.cli(
            ["apps", "add", "--id", "web.example", "--platform", "web", "--vapid-subject", "mailto:ops@example.com"])
        XCTAssertEqual(added.status, 0, added.stderr)
        let publicKey = try XCTUnwrap(added.stdout.split(separator: "\n").last?.split(separator: " ").last.map(String.init))
        XCTAssertEqual(publicKey.count, 87, "65 bytes in unpadded base64url: \(added.stdout)")
        XCTAssertTrue(try pushgate.cli(["apps", "list"]).stdout.contains("public-key=\(publicKey)"))
        let check = try pushgate.cli(["apps", "check", "--id", "web.example"])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdout.contains("signs"), check.stdout)

        // A key of the operator's own, and the refusals.
        let key = try pushgate.cli(["apps", "add", "--id", "web.own", "--platform", "web", "--vapid-subject",
            "https://example.com/contact", "--vapid-key-file", fixture("AuthKey_TEST123456.p8")])
        XCTAssertEqual(key.status, 0, key.stderr)
        for (extra, message) in [
            (["--vapid-subject", "ops@example.com"], "not a mailto: address"),
            (["--vapid-subject", "mailto:ops@example.com", "--vapid-key-file", fixture("ec-p384.p8")], "P-256"),
            (["--vapid-subject", "mailto:ops@example.com", "--topic", "x"], "--topic is not for --platform web"),
            ([], "--vapid-subject is required"),
        ] {
            let output = try pushgate.cli(["apps", "add", "--id", "web.bad", "--platform", "web"] + extra)
            XCTAssertEqual(output.status, 1, extra.joined(separator: " "))
            XCTAssertTrue(output.stderr.contains(message), "expected \(message) in \(output.stderr)")
        }
        let fcmWithSubject = try pushgate.cli(["apps", "add", "--id", "a.b", "--platform", "fcm", "--vapid-subject", "mailto:a@b"])
        XCTAssertTrue(fcmWithSubject.stderr.contains("--vapid-subject is for --platform web"), fcmWithSubject.stderr)
        XCTAssertEqual(try pushgate.cli(["apps", "list"]).stdout.split(separator: "\n").count, 3, "two apps and the header")
    }

    func testEveryCommandHonoursPUSHGATE_DB() throws {
        XCTAssertEqual(try addAPNs().status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: pushgate.database))
        let migrate = try pushgate.cli(["migrate"])
        XCTAssertEqual(migrate.stdout, "schema is up to date (\(pushgate.database))\n")
    }

    func testConfigurationFileAndEnvironment() throws {
        let file = pushgate.directory.appendingPathComponent("pushgate.conf")
        try "# test\nPUSHGATE_HTTP_PORT = 9123\nPUSHGATE_THREADS=3\nPUSHGATE_NOPE = 1\n".write(to: file, atomically: true, encoding: .utf8)
        let port = try pushgate.cli(["config", "get", "PUSHGATE_HTTP_PORT", "--config", file.path])
        XCTAssertEqual(port.stdout, "9123\n")
        XCTAssertTrue(port.stderr.contains("unknown key PUSHGATE_NOPE"), port.stderr)
        // The environment wins over the file.
        XCTAssertEqual(try pushgate.cli(["config", "get", "PUSHGATE_DB", "--config", file.path]).stdout, pushgate.database + "\n")
        try "PUSHGATE_THREADS = many\n".write(to: file, atomically: true, encoding: .utf8)
        let bad = try pushgate.cli(["config", "get", "PUSHGATE_THREADS", "--config", file.path])
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("PUSHGATE_THREADS=many is invalid"), bad.stderr)
    }
}

/// APNs certificate-based credentials through `apps add`.
final class CertificateAppsCommandTests: XCTestCase {
    func testPEMAndPKCS12CertificatesAndTheirRefusals() throws {
        let pushgate = try PushgateInstance()
        let tls = PushgateInstance.repository.appendingPathComponent("Tests/Fixtures/tls")
        func path(_ name: String) -> String { tls.appendingPathComponent(name).path }
        let pem = try pushgate.cli(
            ["apps", "add", "--id", "com.example.cert", "--platform", "apns", "--cert-file", path("client.pem"), "--cert-key", path("client.key")])
        XCTAssertEqual(pem.status, 0, pem.stderr)
        // The password from a file (with the line break an editor adds), from standard input,
        // and, with a warning, from the old option that the process list shows.
        let passwordFile = pushgate.directory.appendingPathComponent("p12-password").path
        try "test-only\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let p12 = try pushgate.cli(
            ["apps", "add", "--id", "com.example.p12", "--platform", "apns", "--cert-file", path("client-protected.p12"),
             "--cert-password-file", passwordFile])
        XCTAssertEqual(p12.status, 0, p12.stderr)
        XCTAssertFalse(p12.stderr.contains("warning"), p12.stderr)
        let fromStandardInput = try pushgate.run(
            PushgateInstance.executable.path,
            ["apps", "add", "--id", "com.example.p12", "--replace", "--platform", "apns",
             "--cert-file", path("client-protected.p12"), "--cert-password-file", "-"],
            stdin: "test-only")
        XCTAssertEqual(fromStandardInput.status, 0, fromStandardInput.stderr)
        let old = try pushgate.cli(
            ["apps", "add", "--id", "com.example.p12", "--replace", "--platform", "apns",
             "--cert-file", path("client-protected.p12"), "--cert-password", "test-only"])
        XCTAssertEqual(old.status, 0, old.stderr)
        XCTAssertTrue(old.stderr.contains("warning: --cert-password shows the password"), old.stderr)
        let list = try pushgate.cli(["apps", "list"])
        XCTAssertTrue(list.stdout.contains("certificate"), list.stdout)
        XCTAssertFalse(list.stdout.contains("BEGIN"), list.stdout)

        let wrongPassword = pushgate.directory.appendingPathComponent("wrong-password").path
        try "nope".write(toFile: wrongPassword, atomically: true, encoding: .utf8)
        let cases: [([String], String)] = [
            (["--cert-file", path("client.pem"), "--cert-key", path("untrusted-client.key")], "does not belong to the certificate"),
            (["--cert-file", path("client.pem")], "--cert-key is required"),
            (["--cert-file", path("client-protected.p12"), "--cert-password-file", wrongPassword], "wrong password"),
            (["--cert-file", path("client-protected.p12"), "--cert-password-file", passwordFile, "--cert-password", "test-only"], "not both"),
            (["--cert-file", path("client-protected.p12"), "--cert-password-file", pushgate.directory.appendingPathComponent("absent").path], "cannot read the file"),
            (["--cert-file", path("client.pem"), "--cert-key", path("client.key"), "--team-id", "ABCDE12345"], "--team-id is for token-based auth"),
        ]
        for (extra, message) in cases {
            let output = try pushgate.cli(["apps", "add", "--id", "com.example.bad", "--platform", "apns"] + extra)
            XCTAssertEqual(output.status, 1, extra.joined(separator: " "))
            XCTAssertTrue(output.stderr.contains(message), "expected \(message) in \(output.stderr)")
        }
    }
}

/// docs/operations.md's configuration table names every key pushgate reads.
final class ReadmeConfigurationTests: XCTestCase {
    func testEveryConfigurationKeyIsDocumented() throws {
        let pushgate = try PushgateInstance()
        let output = try pushgate.cli(["config"])
        XCTAssertEqual(output.status, 0, output.stderr)
        let keys = output.stdout.split(separator: "\n").compactMap { $0.split(separator: "=").first.map(String.init) }
        XCTAssertGreaterThan(keys.count, 10)
        let page = try String(
            contentsOf: PushgateInstance.repository.appendingPathComponent("docs/operations.md"), encoding: .utf8)
        for key in keys {
            XCTAssertTrue(page.contains("| `\(key)` |"), "docs/operations.md's configuration table lacks \(key)")
        }
    }
}
