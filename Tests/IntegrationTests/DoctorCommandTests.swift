import Foundation
import PushTesting
import MockUpstream
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// The real `pushgate doctor` against a real deployment: serve and nginx running, apps
/// registered; then the same deployment broken the two ways operators meet most.
final class DoctorCommandTests: XCTestCase, RunsOnPostgreSQL {
    var pushgate: PushgateInstance!

    override func setUpWithError() throws {
        pushgate = try PushgateInstance()
        try pushgate.start()
    }

    override func tearDown() {
        pushgate.stop()
        pushgate = nil
    }

    /// nginx as the tests run it: started as root without a `user` line, so its workers are nobody.
    private func doctor(_ extra: [String] = []) throws -> PushgateInstance.Output {
        try pushgate.cli(
            ["doctor", "--nginx-user", "nobody", "--nginx-conf", pushgate.directory.appendingPathComponent("nginx/pushgate.conf").path]
                + extra)
    }

    private func addCertificateApp(days: Int) throws {
        let made = try CertificateMaker(in: pushgate.directory).make(from: Date().addingTimeInterval(-86_400), days: days)
        let add = try pushgate.cli(
            ["apps", "add", "--id", "com.example.cert", "--platform", "apns", "--cert-file", made.cert, "--cert-key", made.key])
        XCTAssertEqual(add.status, 0, add.stderr)
    }

    func testAGoodDeploymentPasses() throws {
        try addCertificateApp(days: 365)
        let fixtures = PushgateInstance.repository.appendingPathComponent("Tests/PushCryptoTests/Fixtures")
        let add = try pushgate.cli(
            ["apps", "add", "--id", "com.example.app", "--platform", "apns", "--team-id", "ABCDE12345", "--key-id", "TEST123456",
             "--key-file", fixtures.appendingPathComponent("AuthKey_TEST123456.p8").path])
        XCTAssertEqual(add.status, 0, add.stderr)

        let output = try doctor()
        XCTAssertEqual(output.status, 0, output.stdout + output.stderr)
        XCTAssertFalse(output.stdout.contains("FAIL"), output.stdout)
        // On PostgreSQL the server is asked; its disk is its own host's business.
        let onPostgreSQL = pushgate.postgreSQLURL != nil
        var subjects = ["configuration", "database", "socket", "serve", "nginx", "app com.example.cert", "app com.example.app"]
        if !onPostgreSQL { subjects.append("disk") }
        for subject in subjects {
            XCTAssertTrue(output.stdout.contains("ok   \(subject): "), "no ok line for \(subject):\n\(output.stdout)")
        }
        if onPostgreSQL {
            XCTAssertTrue(output.stdout.contains("ok   database: PostgreSQL "), output.stdout)
            XCTAssertTrue(output.stdout.contains("answers and is migrated"), output.stdout)
            XCTAssertFalse(output.stdout.contains("disk:"), output.stdout)
        }
        // Whether NTP keeps this machine's clock is the machine's business: a warning at most.
        XCTAssertTrue(output.stdout.contains("ok   clock: ") || output.stdout.contains("WARN clock: "), output.stdout)
        XCTAssertTrue(output.stdout.hasSuffix("no problems found\n"), output.stdout)
        XCTAssertTrue(output.stdout.contains("ok   serve: answers on \(pushgate.socket): GET /readyz 200 in "), output.stdout)
    }

    func testAnUnreachableSocketAndAnExpiredCertificateAreNamedWithTheirFix() throws {
        try XCTSkipIf(pushgate.postgreSQLURL != nil, "swaps the certificate in the SQLite file")
        try addCertificateApp(days: 365)
        // The certificate runs out (apps add refuses an expired one, so it is swapped in the
        // store, as time would do).
        let expired = try CertificateMaker(in: pushgate.directory).make(
            from: Date().addingTimeInterval(-400 * 86_400), to: Date().addingTimeInterval(-3 * 86_400))
        let update = try pushgate.run(
            "/usr/bin/env",
            ["python3", "-c",
             "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                + "c.execute('UPDATE apps SET apns_certificate_pem = ?, apns_certificate_key_pem = ? WHERE id = ?', "
                + "(open(sys.argv[2]).read(), open(sys.argv[3]).read(), 'com.example.cert')); c.commit()",
             pushgate.database, expired.cert, expired.key])
        XCTAssertEqual(update.status, 0, update.stderr)
        // The socket's folder closed to everyone but its owner: nginx answers 502 to everything.
        let run = pushgate.directory.appendingPathComponent("run").path
        chmod(run, 0o700)
        XCTAssertEqual(try pushgate.client.get("/healthz").status, 502)

        let output = try doctor()
        XCTAssertEqual(output.status, 1, output.stdout + output.stderr)
        let failures = output.stdout.split(separator: "\n").filter { $0.hasPrefix("FAIL") }
        XCTAssertEqual(failures.count, 2, output.stdout)
        XCTAssertTrue(
            failures.contains { $0.hasPrefix("FAIL socket: nobody (nginx's workers) cannot pass through \(run) (mode 0700") && $0.contains("chmod o+x \(run)") },
            output.stdout)
        XCTAssertTrue(
            failures.contains { $0.hasPrefix("FAIL app com.example.cert: the APNs push certificate expired on") && $0.contains("apps add --replace") },
            output.stdout)
        XCTAssertTrue(output.stdout.hasSuffix("2 problem(s) found\n"), output.stdout)

        // Fixed as the line says, the socket passes again (and nginx reaches serve).
        chmod(run, 0o711)
        let fixed = try doctor()
        XCTAssertFalse(fixed.stdout.contains("FAIL socket"), fixed.stdout)
        XCTAssertEqual(try pushgate.client.get("/healthz").status, 200)
    }

    func testABadConfigurationAndAMissingDatabase() throws {
        try XCTSkipIf(pushgate.postgreSQLURL != nil, "a missing SQLite file")
        let config = pushgate.directory.appendingPathComponent("broken.conf").path
        try "PUSHGATE_DB = \(pushgate.database)\nPUSHGATE_THREADS = lots\n".write(toFile: config, atomically: true, encoding: .utf8)
        let broken = try doctor(["--config", config])
        XCTAssertEqual(broken.status, 1)
        XCTAssertTrue(broken.stdout.hasPrefix("FAIL configuration: configuration PUSHGATE_THREADS=lots is invalid"), broken.stdout)

        // The environment wins over the file: a deployment whose PUSHGATE_DB names nothing.
        let missing = pushgate.directory.appendingPathComponent("elsewhere/none.sqlite").path
        let elsewhere = try PushgateInstance(environment: ["PUSHGATE_DB": missing], migrated: false)
        let noDatabase = try elsewhere.cli(
            ["doctor", "--nginx-user", "nobody", "--nginx-conf", pushgate.directory.appendingPathComponent("nginx/pushgate.conf").path])
        XCTAssertEqual(noDatabase.status, 1)
        XCTAssertTrue(noDatabase.stdout.contains("FAIL database: \(missing) does not exist: run `pushgate migrate`"), noDatabase.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing), "doctor created the database")
    }
}

/// `doctor --online`: `apps check` for every app, here against the mock APNs.
final class DoctorOnlineTests: XCTestCase {
    func testOnlineChecksEachAppsCredentialsWithTheUpstream() throws {
        let apns = try MockAPNs(configuration: MockAPNsConfiguration(providerKeys: [try .fixture]))
        defer { apns.shutdown() }
        let pushgate = try PushgateInstance(environment: PushgateInstance.upstreams(apns: apns))
        try pushgate.start()
        defer { pushgate.stop() }
        try pushgate.addMockAPNsApp(id: "com.example.pushgate")
        // Well-formed offline, unknown to Apple: only the online check can tell.
        let other = try pushgate.cli([
            "apps", "add", "--id", "com.example.other", "--platform", "apns", "--team-id", MockFixtures.apnsTeamID,
            "--key-id", "OTHERKEY12", "--key-file", MockFixtures.apnsKeyFile,
        ])
        XCTAssertEqual(other.status, 0, other.stderr)
        let arguments = ["doctor", "--nginx-user", "nobody", "--nginx-conf", pushgate.directory.appendingPathComponent("nginx/pushgate.conf").path]

        let offline = try pushgate.cli(arguments)
        XCTAssertEqual(offline.status, 0, offline.stdout)
        XCTAssertFalse(offline.stdout.contains("online"), offline.stdout)

        let online = try pushgate.cli(arguments + ["--online"])
        XCTAssertEqual(online.status, 1, online.stdout)
        XCTAssertTrue(online.stdout.contains("ok   app com.example.pushgate online: ok: APNs accepted the credentials"), online.stdout)
        XCTAssertTrue(
            online.stdout.contains("FAIL app com.example.other online: APNs refused the credentials of com.example.other: InvalidProviderToken"),
            online.stdout)
    }
}

/// Certificates made by the real `openssl ca`, which takes any validity period, past ones too.
struct CertificateMaker {
    let directory: URL

    init(in directory: URL) {
        self.directory = directory
    }

    func make(from start: Date, days: Int) throws -> (cert: String, key: String) {
        try make(from: start, to: start.addingTimeInterval(TimeInterval(days) * 86_400))
    }

    func make(from start: Date, to end: Date) throws -> (cert: String, key: String) {
        let made = try DatedCertificate.make(from: start, to: end, in: directory, subject: "Apple Push Services: com.example.cert")
        return (made.certificateFile.path, made.keyFile.path)
    }
}
