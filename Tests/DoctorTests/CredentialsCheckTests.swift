@testable import App
import Foundation
import PushCore
import XCTest

/// Each app's credentials, offline: push certificates by their end date (made with openssl
/// for each case), signing keys and service accounts by whether they load.
final class CredentialsCheckTests: ScratchDirectoryTestCase {
    private let day: TimeInterval = 86_400

    private func fixture(_ name: String) throws -> String {
        try DoctorFixtures.text(DoctorFixtures.cryptoFixtures.appendingPathComponent(name))
    }

    private func app(_ credentials: AppCredentials, id: String = "com.example.app") -> RegisteredApp {
        RegisteredApp(id: AppID(id)!, credentials: credentials)
    }

    private func certificateApp(validFor range: (start: TimeInterval, end: TimeInterval)) throws -> RegisteredApp {
        let now = Date()
        let made = try DoctorFixtures.certificate(
            from: now.addingTimeInterval(range.start), to: now.addingTimeInterval(range.end), in: scratch)
        return app(.apnsCertificate(certificatePEM: made.cert, privateKeyPEM: made.key))
    }

    private func check(_ apps: [RegisteredApp]) -> [DoctorFinding] {
        CredentialsCheck(apps: apps, now: Date(), expiryWarningDays: 30).run()
    }

    func testAnExpiredCertificateIsAProblem() throws {
        let findings = check([try certificateApp(validFor: (-400 * day, -2 * day))])
        XCTAssertEqual(findings.map(\.verdict), [.problem], "\(findings)")
        XCTAssertEqual(findings[0].subject, "app com.example.app")
        XCTAssertTrue(findings[0].message.contains("expired on"), findings[0].message)
        XCTAssertTrue(findings[0].message.contains("apps add --replace"), findings[0].message)
    }

    func testACertificateNearItsEndIsAProblem() throws {
        let findings = check([try certificateApp(validFor: (-300 * day, 5 * day + 3600))])
        XCTAssertEqual(findings.map(\.verdict), [.problem], "\(findings)")
        XCTAssertTrue(findings[0].message.contains("expires in 5 day(s)"), findings[0].message)
    }

    func testACertificateWithTimeLeftIsFineAndTheThresholdIsTheOperators() throws {
        let app = try certificateApp(validFor: (-day, 100 * day + 3600))
        let findings = check([app])
        XCTAssertEqual(findings.map(\.verdict), [.ok], "\(findings)")
        XCTAssertTrue(findings[0].message.contains("(100 days)"), findings[0].message)
        let stricter = CredentialsCheck(apps: [app], now: Date(), expiryWarningDays: 120).run()
        XCTAssertEqual(stricter.map(\.verdict), [.problem])
        // The same certificate seen from a clock 101 days ahead has expired.
        let later = CredentialsCheck(apps: [app], now: Date().addingTimeInterval(101 * day), expiryWarningDays: 30).run()
        XCTAssertTrue(later[0].message.contains("expired on"), later[0].message)
    }

    func testSigningKeysAndServiceAccounts() throws {
        let key = try fixture("AuthKey_TEST123456.p8")
        let findings = check([
            app(.apnsToken(teamID: "ABCDE12345", keyID: "TEST123456", privateKeyPEM: key), id: "good.key"),
            app(.apnsToken(teamID: "abc", keyID: "TEST123456", privateKeyPEM: key), id: "bad.team"),
            app(.apnsToken(teamID: "ABCDE12345", keyID: "TEST123456", privateKeyPEM: try fixture("rsa-2048.pem")), id: "rsa.key"),
            app(.fcmServiceAccount(json: try fixture("service-account.json"), projectID: "p"), id: "good.fcm"),
            app(.fcmServiceAccount(json: try fixture("service-account-no-private-key.json"), projectID: "p"), id: "bad.fcm"),
        ])
        XCTAssertEqual(findings.map(\.verdict), [.ok, .problem, .problem, .ok, .problem], "\(findings)")
        XCTAssertTrue(findings[1].message.contains("team id abc"), findings[1].message)
        XCTAssertTrue(findings[2].message.contains("does not load"), findings[2].message)
        XCTAssertTrue(findings[4].message.contains("service account does not load"), findings[4].message)
    }

    func testNoAppsIsAWarningOnly() {
        XCTAssertEqual(check([]).map(\.verdict), [.warning])
    }

    func testOpenSSLTimes() {
        let date = CredentialsCheck.date(openSSLTime: "Jun  1 12:00:00 2027 GMT")
        XCTAssertEqual(date?.timeIntervalSince1970, 1_811_851_200)
        XCTAssertNil(CredentialsCheck.date(openSSLTime: "2027-06-01"))
    }
}
